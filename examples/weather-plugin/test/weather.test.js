import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext } from 'toolshed/plugin';
import plugin from '../index.js';

/** A canned OpenWeatherMap on loopback: never the network. */
let server;
let endpoint;
const requests = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://localhost');
    requests.push(url);
    const city = url.searchParams.get('q');
    if (url.searchParams.get('appid') !== 'good-key') return void res.writeHead(401).end('{"cod":401}');
    if (city === 'Atlantis') return void res.writeHead(404).end('{"cod":"404"}');
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        name: city,
        sys: { country: 'FR' },
        weather: [{ description: 'light rain' }],
        main: { temp: 12.5, feels_like: 11, humidity: 80 },
        wind: { speed: 3.2 },
      }),
    );
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${server.address().port}/data/2.5/weather`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

const tool = plugin.tools.find((t) => t.name === 'get_weather');
const ctx = (env) => createTestContext({ env });

describe('toolshed-plugin-weather', () => {
  it('declares the plugin API, its toolset and its key requirement', () => {
    expect(plugin.apiVersion).toBe(1);
    expect(tool.requires.env).toEqual(['OPENWEATHER_API_KEY']);
    expect(plugin.permissions.env).toContain('OPENWEATHER_API_KEY');
  });

  it('returns current weather from the API', async () => {
    const out = await tool.handler(
      { city: 'Paris' },
      ctx({ OPENWEATHER_API_KEY: 'good-key', OPENWEATHER_ENDPOINT: endpoint }),
    );
    expect(out).toEqual({
      city: 'Paris',
      country: 'FR',
      conditions: 'light rain',
      temperature: 12.5,
      feelsLike: 11,
      unit: 'C',
      humidityPercent: 80,
      windSpeed: 3.2,
    });
    expect(requests.at(-1).searchParams.get('units')).toBe('metric');
  });

  it('asks for imperial units when told to', async () => {
    const out = await tool.handler(
      { city: 'Paris', units: 'imperial' },
      ctx({ OPENWEATHER_API_KEY: 'good-key', OPENWEATHER_ENDPOINT: endpoint }),
    );
    expect(out.unit).toBe('F');
    expect(requests.at(-1).searchParams.get('units')).toBe('imperial');
  });

  it('explains an unknown city and a rejected key', async () => {
    await expect(
      tool.handler({ city: 'Atlantis' }, ctx({ OPENWEATHER_API_KEY: 'good-key', OPENWEATHER_ENDPOINT: endpoint })),
    ).rejects.toThrow(/No city called "Atlantis"/);
    await expect(
      tool.handler({ city: 'Paris' }, ctx({ OPENWEATHER_API_KEY: 'bad', OPENWEATHER_ENDPOINT: endpoint })),
    ).rejects.toThrow(/rejected the API key/);
  });
});
