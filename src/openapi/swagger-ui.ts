import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The Swagger UI files /docs loads. */
export const SWAGGER_UI_FILES = ['swagger-ui.css', 'swagger-ui-bundle.js'] as const;

/**
 * Where Swagger UI's files are: beside this module in dist/ (the build copies them there, see
 * tools/vendor-swagger-ui.ts, so the package needs no swagger-ui-dist), else, running from the
 * sources, the swagger-ui-dist devDependency.
 */
export function swaggerUiFolder(): string {
  const shipped = fileURLToPath(new URL('./swagger-ui/', import.meta.url));
  if (existsSync(shipped)) return shipped;
  return dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
}
