import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DEV_KEY_HEADERS, testApp } from '../../test/api/helpers.ts';
import { OPENAPI_PATH, renderOpenApiDocument } from './index.ts';

describe('OpenAPI document', () => {
  it('is committed in contracts/openapi.json exactly as generated (run `npm run openapi` after changing a schema)', () => {
    expect(readFileSync(OPENAPI_PATH, 'utf8')).toBe(renderOpenApiDocument());
  });

  it('is OpenAPI 3.1 and documents every route at the root and under /casino', () => {
    const doc = JSON.parse(renderOpenApiDocument());
    expect(doc.openapi).toBe('3.1.0');
    for (const path of ['/getallproviders', '/getallgamesandprovider', '/getgameurl']) {
      expect(doc.paths[path]).toBeDefined();
      expect(doc.paths[`/casino${path}`]).toBeDefined();
    }
    expect(doc.components.schemas.LaunchRequest.required).toEqual(
      expect.arrayContaining(['username', 'gameId', 'money', 'platform', 'home_url']),
    );
  });

  it('documents the callbacks in `webhooks` with exactly {type, transactionId, amount, playerId}', () => {
    const doc = JSON.parse(renderOpenApiDocument());
    expect(Object.keys(doc.webhooks)).toEqual(['DEBIT', 'CREDIT', 'ROLLBACK']);
    for (const type of ['DEBIT', 'CREDIT', 'ROLLBACK']) {
      const schema = doc.webhooks[type].post.requestBody.content['application/json'].schema;
      expect(schema.required).toEqual(['type', 'transactionId', 'amount', 'playerId']);
      expect(Object.keys(schema.properties)).toEqual(['type', 'transactionId', 'amount', 'playerId']);
      expect(schema.additionalProperties).toBe(false);
    }
  });

  it('is served at /openapi.json and Swagger UI at /docs', async () => {
    const { app } = testApp();
    const doc = await (await app.request('/openapi.json')).json();
    expect(doc.openapi).toBe('3.1.0');
    const docs = await app.request('/docs', { headers: DEV_KEY_HEADERS });
    expect(docs.headers.get('content-type')).toMatch(/text\/html/);
    expect(await docs.text()).toContain('/openapi.json');
  });
});
