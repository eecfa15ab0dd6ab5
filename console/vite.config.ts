/**
 * The console's build (docs/console-decision.md): Preact through Vite, served by Tariff under
 * `/console/` from `dist/console` (`npm run build`). JSX comes from tsconfig (`jsxImportSource`).
 */
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/console/',
  build: { target: 'es2022', outDir: fileURLToPath(new URL('../dist/console', import.meta.url)), emptyOutDir: true },
  logLevel: 'warn',
});
