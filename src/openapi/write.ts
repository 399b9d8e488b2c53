import { fileURLToPath } from 'node:url';
import { OPENAPI_PATH, writeOpenApiDocument } from './index.ts';

writeOpenApiDocument();
process.stdout.write(`wrote ${fileURLToPath(OPENAPI_PATH)}\n`);
