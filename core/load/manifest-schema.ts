/**
 * The JSON Schema of an extracted plugin manifest. A plugin object that does
 * not match is PLUGIN_INVALID with the JSON pointer of the first problem.
 */

const nameList = { type: 'array', items: { type: 'string', minLength: 1 } } as const;

/** Schema of the data `extractManifest` produces from a plugin object. */
export const manifestSchema = {
  type: 'object',
  required: ['apiVersion', 'tools'],
  properties: {
    apiVersion: { const: 1 },
    toolsets: {
      type: 'object',
      propertyNames: { pattern: '^[a-zA-Z0-9_.:-]{1,64}$' },
      additionalProperties: {
        type: 'object',
        additionalProperties: false,
        properties: { description: { type: 'string' }, includes: nameList, tools: nameList },
      },
    },
    permissions: {
      type: 'object',
      additionalProperties: false,
      properties: {
        network: { type: 'boolean' },
        env: nameList,
        fsRead: nameList,
        fsWrite: nameList,
        callTools: nameList,
        // Folders asked for by purpose; the operator chooses where (grant.folders).
        folders: {
          type: 'object',
          propertyNames: { pattern: '^[a-zA-Z0-9_-]{1,64}$' },
          additionalProperties: {
            type: 'object',
            required: ['access'],
            additionalProperties: false,
            properties: { access: { enum: ['read', 'write'] }, description: { type: 'string' } },
          },
        },
      },
    },
    tools: {
      type: 'array',
      items: {
        type: 'object',
        required: ['name', 'description', 'parameters', 'handler'],
        properties: {
          name: { type: 'string', pattern: '^[a-zA-Z0-9_-]{1,64}$' },
          toolset: { type: 'string', pattern: '^[a-zA-Z0-9_.:-]{1,64}$' },
          description: {
            anyOf: [
              { type: 'string', minLength: 1 },
              {
                type: 'array',
                minItems: 1,
                items: {
                  anyOf: [
                    { type: 'string' },
                    {
                      type: 'object',
                      required: ['ifAvailable', 'text'],
                      additionalProperties: false,
                      properties: { ifAvailable: nameList, text: { type: 'string' } },
                    },
                    {
                      type: 'object',
                      required: ['ifMissing', 'text'],
                      additionalProperties: false,
                      properties: { ifMissing: nameList, text: { type: 'string' } },
                    },
                  ],
                },
              },
            ],
          },
          parameters: { type: 'object', properties: { type: { const: 'object' } }, required: ['type'] },
          // Its root's `type: "object"` is checked in manifest.ts, whose message says why.
          outputSchema: { type: 'object' },
          title: { type: 'string', minLength: 1, maxLength: 200 },
          icons: {
            type: 'array',
            maxItems: 16,
            items: {
              type: 'object',
              required: ['src'],
              additionalProperties: false,
              properties: {
                src: { type: 'string', minLength: 1 },
                mimeType: { type: 'string' },
                sizes: { type: 'array', items: { type: 'string' } },
                theme: { enum: ['light', 'dark'] },
              },
            },
          },
          examples: { type: 'array', maxItems: 20, items: { type: 'object' } },
          secrets: {
            type: 'array',
            maxItems: 16,
            uniqueItems: true,
            items: { type: 'string', pattern: '^[A-Za-z_][A-Za-z0-9_]{0,63}$' },
          },
          requires: {
            type: 'object',
            additionalProperties: false,
            properties: { env: nameList, bins: nameList, tools: nameList, platforms: nameList },
          },
          limits: {
            type: 'object',
            additionalProperties: false,
            properties: {
              timeoutMs: { type: 'integer', minimum: 1 },
              maxResultChars: { type: 'integer', minimum: 100 },
              maxArgsBytes: { type: 'integer', minimum: 2 },
            },
          },
          codeCallable: { type: 'boolean' },
          sandbox: { type: 'boolean' },
          annotations: {
            type: 'object',
            additionalProperties: false,
            properties: {
              title: { type: 'string' },
              readOnlyHint: { type: 'boolean' },
              destructiveHint: { type: 'boolean' },
              idempotentHint: { type: 'boolean' },
              openWorldHint: { type: 'boolean' },
            },
          },
          longRunning: { type: 'boolean' },
          handler: { const: 'function' },
          checkId: { type: 'string' },
          checkType: { const: 'function' },
        },
      },
    },
  },
} as const;
