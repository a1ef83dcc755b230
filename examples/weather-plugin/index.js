// @ts-check
/**
 * toolshed-plugin-weather: a complete third-party toolshed plugin.
 * The default export is a plain object; a plugin need not import toolshed.
 */
import { currentWeather } from './lib/openweather.js';

/** @type {import('toolshed/plugin').PluginSpec} */
const plugin = {
  apiVersion: 1,
  toolsets: { weather: { description: 'Current weather lookups' } },
  permissions: { network: true, env: ['OPENWEATHER_API_KEY', 'OPENWEATHER_ENDPOINT'] },
  tools: [
    {
      name: 'get_weather',
      toolset: 'weather',
      description: [
        'Current weather (conditions, temperature, humidity, wind) for a city.',
        { ifAvailable: ['web_search'], text: 'For forecasts or historical weather, use web_search instead.' },
      ],
      parameters: {
        type: 'object',
        properties: {
          city: {
            type: 'string',
            minLength: 1,
            description: 'City name, optionally with a country code, e.g. "Paris,FR"',
          },
          units: {
            enum: ['metric', 'imperial'],
            description: 'metric (°C, m/s) or imperial (°F, mph); default metric',
          },
        },
        required: ['city'],
        additionalProperties: false,
      },
      requires: { env: ['OPENWEATHER_API_KEY'] },
      limits: { timeoutMs: 15000 },
      codeCallable: true,
      handler: currentWeather,
    },
  ],
};

export default plugin;
