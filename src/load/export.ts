import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { VERSION } from '../version.ts';
import { artilleryFiles } from './artillery.ts';
import { ExportError, type ExportOptions } from './export-options.ts';
import { k6Script } from './k6.ts';

/**
 * `--export k6|artillery`: a test for another load tool that makes the same calls as
 * `aggmock load`, signed the same way, and writes each call as a run record line, so
 * `aggmock load --check <file>` gives the same correctness verdict.
 */
export { ExportError, type ExportOptions } from './export-options.ts';

export const EXPORT_TARGETS = ['k6', 'artillery'] as const;

/** Writes the export; returns the files written. */
export function exportRun(target: string, o: ExportOptions): string[] {
  if (!(EXPORT_TARGETS as readonly string[]).includes(target))
    throw new ExportError(`--export: expected ${EXPORT_TARGETS.join(' or ')}, got ${JSON.stringify(target)}.`);
  mkdirSync(o.out, { recursive: true });
  if (target === 'k6') {
    const file = join(o.out, 'load.k6.js');
    writeFileSync(file, k6Script(o));
    return [file];
  }
  return Object.entries(artilleryFiles(o, VERSION)).map(([name, text]) => {
    const file = join(o.out, name);
    writeFileSync(file, text);
    return file;
  });
}
