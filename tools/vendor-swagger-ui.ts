/**
 * Copies the two Swagger UI files /docs serves (and their Apache-2.0 licence and notice) from the
 * swagger-ui-dist devDependency into dist/openapi/swagger-ui/. The package ships them itself, so
 * an installed aggmock has no swagger-ui-dist and with it no @scarf/scarf, whose install script
 * reports the install over the network. Run by `npm run build`.
 */
import { copyFileSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SWAGGER_UI_FILES } from '../src/openapi/swagger-ui.ts';

const from = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
const to = fileURLToPath(new URL('../dist/openapi/swagger-ui/', import.meta.url));
mkdirSync(to, { recursive: true });
for (const file of [...SWAGGER_UI_FILES, 'LICENSE', 'NOTICE']) copyFileSync(join(from, file), join(to, file));
