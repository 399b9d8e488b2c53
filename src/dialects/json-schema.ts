import { z } from 'zod';
import { dialectSchema } from './schema.ts';

/** Where the dialect JSON Schema is committed (and shipped): editors validate dialect files with it. */
export const DIALECT_SCHEMA_PATH = new URL('../../contracts/dialect.schema.json', import.meta.url);

/** The JSON Schema of a dialect file, generated from the zod schema the loader validates with. */
export function dialectJsonSchemaText(): string {
  const schema = { title: 'aggmock dialect', ...z.toJSONSchema(dialectSchema, { io: 'input', unrepresentable: 'any' }) };
  return `${JSON.stringify(schema, null, 2)}\n`;
}
