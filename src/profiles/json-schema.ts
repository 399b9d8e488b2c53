import { z } from 'zod';
import { profileDefinitionSchema } from './schema.ts';

/** Where the profile JSON Schema is committed (and shipped): editors validate profile files with it. */
export const PROFILE_SCHEMA_PATH = new URL('../../contracts/profile.schema.json', import.meta.url);

/** The JSON Schema of a profile file, generated from the zod schema the loader validates with. */
export function profileJsonSchema(): Record<string, unknown> {
  return {
    title: 'aggmock wire profile',
    ...z.toJSONSchema(profileDefinitionSchema, { io: 'input', unrepresentable: 'any' }),
  };
}

/** The schema as committed: pretty JSON with a final newline. */
export function profileJsonSchemaText(): string {
  return `${JSON.stringify(profileJsonSchema(), null, 2)}\n`;
}
