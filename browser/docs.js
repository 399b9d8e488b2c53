// @ts-check
/*
 * Starts Swagger UI on /docs. The bundle (a classic script before this module) defines the global
 * SwaggerUIBundle; module scripts run after it.
 */
import { pageData } from './page-data.js';

/** @typedef {(options: Record<string, unknown>) => unknown} SwaggerUIBundle */

const { url } = /** @type {{ url: string }} */ (pageData());
const start = /** @type {{ SwaggerUIBundle: SwaggerUIBundle, ui?: unknown }} */ (/** @type {unknown} */ (window));
// validatorUrl "none": no badge image from validator.swagger.io.
start.ui = start.SwaggerUIBundle({ url, dom_id: '#swagger-ui', validatorUrl: 'none', deepLinking: true });
