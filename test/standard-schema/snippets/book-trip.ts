// The example of docs/plugins.md, "Schemas with zod or valibot", as the type checker sees it
// (test/standard-schema/docs-example.test.ts holds the two the same).
// --- docs/plugins.md
import { z } from 'zod';
import { definePlugin } from 'toolshed/plugin';

export default definePlugin({
  apiVersion: 1,
  tools: [
    {
      name: 'book_trip',
      description: 'Books a hotel for a trip.',
      parameters: z.object({
        city: z.string().min(1).describe('Where to'),
        nights: z.number().int().positive().default(1),
      }),
      // args is { city: string; nights: number }: nights is 1 when the model left it out.
      handler: ({ city, nights }) => `Booked ${nights} night${nights === 1 ? '' : 's'} in ${city}.`,
    },
  ],
});
// --- end
