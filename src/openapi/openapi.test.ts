import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DEV_KEY_HEADERS, testApp } from '../../test/api/helpers.ts';
import { validateConfig } from '../config/index.ts';
import { buildOpenApiDocument, OPENAPI_PATH, renderOpenApiDocument } from './index.ts';

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

  it('documents the default dialect’s calls in `webhooks` with exactly {type, transactionId, amount, playerId}, signed in X-Signature', () => {
    const doc = JSON.parse(renderOpenApiDocument());
    expect(Object.keys(doc.webhooks)).toEqual(['bet', 'win', 'rollback']);
    for (const [call, type] of [
      ['bet', 'DEBIT'],
      ['win', 'CREDIT'],
      ['rollback', 'ROLLBACK'],
    ] as const) {
      const { parameters, requestBody } = doc.webhooks[call].post;
      const schema = requestBody.content['application/json'].schema;
      expect(schema.required).toEqual(['type', 'transactionId', 'amount', 'playerId']);
      expect(Object.keys(schema.properties)).toEqual(['type', 'transactionId', 'amount', 'playerId']);
      expect(schema.properties.type).toEqual({ const: type });
      expect(parameters).toEqual([expect.objectContaining({ name: 'X-Signature', in: 'header', required: true })]);
    }
  });

  it('documents a vendor dialect’s calls in `webhooks` with its own signature header, and Betnex unsigned', () => {
    const hub88 = JSON.parse(JSON.stringify(buildOpenApiDocument(validateConfig({ callbacks: { dialect: 'hub88' } }))));
    expect(Object.keys(hub88.webhooks)).toEqual(['authenticate', 'balance', 'bet', 'win', 'rollback']);
    expect(hub88.webhooks.bet.post.parameters).toEqual([expect.objectContaining({ name: 'X-Hub88-Signature', in: 'header' })]);
    const betnex = JSON.parse(JSON.stringify(buildOpenApiDocument(validateConfig({ callbacks: { dialect: 'betnex' } }))));
    expect(Object.keys(betnex.webhooks)).toEqual(['bet', 'win']);
    expect(betnex.webhooks.bet.post.parameters).toBeUndefined();
    expect(betnex.webhooks.bet.post.requestBody.content['application/json'].schema.properties).toHaveProperty('api_key');
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
