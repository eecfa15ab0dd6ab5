/** The pyscripts module's part of the price list (`PriceListSection`): `scripts`. */
import { formatApiDateTime } from '../../common/datetime.js';
import { compareCodePoints } from '../../common/text.js';
import type { PriceListSection } from '../../contract/price-list-section.js';
import { ensureCompiles, type ScriptCompiler } from '../compile.js';
import { scriptTables } from '../tables.js';
import { planScripts, writeScripts } from './plan.js';
import { loadScripts, pyscriptsPriceListMembers, readScripts, type DocumentScript } from './scripts.js';
import { BadRequestError } from '../../../kernel/errors.js';

/**
 * Scripts as one document section. Every script of a document must compile (fix: as on POST and
 * PUT, CloudKitty accepted any text and failed at rating time).
 *
 * @param compiler - the sandbox; without one, sources are not compile-checked.
 */
export function pyscriptsPriceList(compiler: ScriptCompiler | undefined): PriceListSection<DocumentScript[]> {
  return {
    members: pyscriptsPriceListMembers,
    async exportSection(db, at, times) {
      const scripts = await loadScripts(scriptTables(db), at, times);
      scripts.sort((left, right) => compareCodePoints(left.name, right.name) || left.start.getTime() - right.start.getTime());
      return {
        scripts: scripts.map((script) => ({
          name: script.name,
          data: script.data,
          ...(script.description !== null ? { description: script.description } : {}),
          ...(script.start.getTime() > at.getTime() ? { start: formatApiDateTime(script.start) } : {}),
          ...(script.end !== null ? { end: formatApiDateTime(script.end) } : {}),
        })),
      };
    },
    async readSection(members, reader) {
      const scripts = await readScripts(members, reader);
      for (const script of scripts) {
        try {
          await ensureCompiles(compiler, script.name, script.data);
        } catch (error) {
          // A source that does not compile is the document's problem; a busy sandbox is not (503).
          if (!(error instanceof BadRequestError)) throw error;
          reader.problem([...script.path, 'data'], error.message);
        }
      }
      return scripts;
    },
    async planSection(transaction, scripts, context) {
      const stored = await loadScripts(scriptTables(transaction), context.effectiveAt, context.times);
      const { changes, objectIds, writes } = planScripts(scripts, stored, context.effectiveAt);
      return {
        changes,
        objectIds,
        unversioned: [],
        write: (writeTransaction, audit) => writeScripts(scriptTables(writeTransaction), writes, context.effectiveAt, audit, context.times),
      };
    },
  };
}
