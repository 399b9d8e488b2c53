import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { DIALECT_SCHEMA_PATH, dialectJsonSchemaText } from '../dialects/index.ts';
import { PROFILE_SCHEMA_PATH, profileJsonSchemaText } from '../profiles/index.ts';
import { OPENAPI_PATH, renderOpenApiDocument } from './index.ts';

/** `npm run openapi`: rewrites the committed documents generated from the zod schemas. */
for (const [path, text] of [
  [OPENAPI_PATH, renderOpenApiDocument()],
  [PROFILE_SCHEMA_PATH, profileJsonSchemaText()],
  [DIALECT_SCHEMA_PATH, dialectJsonSchemaText()],
] as const) {
  writeFileSync(path, text);
  process.stdout.write(`wrote ${fileURLToPath(path)}\n`);
}
