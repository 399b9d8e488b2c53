import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { DIALECT_SCHEMA_PATH, dialectJsonSchemaText } from '../dialects/index.ts';
import { PROFILE_SCHEMA_PATH, profileJsonSchemaText } from '../profiles/index.ts';
import { OPENAPI_PATH, writeOpenApiDocument } from './index.ts';

/** `npm run openapi`: rewrites the committed documents generated from the zod schemas. */
writeOpenApiDocument();
process.stdout.write(`wrote ${fileURLToPath(OPENAPI_PATH)}\n`);
writeFileSync(PROFILE_SCHEMA_PATH, profileJsonSchemaText());
process.stdout.write(`wrote ${fileURLToPath(PROFILE_SCHEMA_PATH)}\n`);
writeFileSync(DIALECT_SCHEMA_PATH, dialectJsonSchemaText());
process.stdout.write(`wrote ${fileURLToPath(DIALECT_SCHEMA_PATH)}\n`);
