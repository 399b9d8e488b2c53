import { readdirSync, readFileSync } from 'node:fs';
import { join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * No source file of src/ over 500 lines (tests excluded): a file that long mixes jobs, and the team
 * splits it by responsibility rather than letting it grow (ARCHITECTURE.md, "Rooms").
 */
const MAX_LINES = 500;
const src = fileURLToPath(new URL('../src', import.meta.url));

function longFiles(): string[] {
  return (readdirSync(src, { recursive: true }) as string[])
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
    .map((f) => ({ file: f.split(sep).join('/'), lines: readFileSync(join(src, f), 'utf8').split('\n').length - 1 }))
    .filter(({ lines }) => lines > MAX_LINES)
    .map(({ file, lines }) => `src/${file}: ${lines} lines`);
}

describe('source files', () => {
  it(`keeps every source file of src/ at ${MAX_LINES} lines or fewer`, () => {
    expect(longFiles()).toEqual([]);
  });
});
