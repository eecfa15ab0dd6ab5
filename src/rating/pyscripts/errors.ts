/** The pyscripts module's errors, with CloudKitty's messages. */
import { ConflictError, NotFoundError, TariffError } from '../../kernel/errors.js';

/** 404 `No such script: None (UUID: {id})`. */
export const noSuchScript = (id: string) => new NotFoundError(`No such script: None (UUID: ${id})`);
/** 409 `Script {name} already exists (UUID: {id})`. */
export const scriptExists = (name: string, id: string) => new ConflictError(`Script ${name} already exists (UUID: ${id})`);

/** 503 when scripts must run and the process has no sandbox (`TARIFF_SANDBOX_WORKERS=0`). */
export class SandboxUnavailableError extends TariffError {
  constructor() {
    super(503, 'The PyScripts sandbox is not available; try again later.');
  }
}
