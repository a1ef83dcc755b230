// @ts-check
/** A small OpenWeatherMap "current weather" client. */

const DEFAULT_ENDPOINT = 'https://api.openweathermap.org/data/2.5/weather';

/**
 * Fetches current weather for a city.
 * @param {{ city: string, units?: 'metric' | 'imperial' }} args
 * @param {{ env: Readonly<Record<string, string>>, signal: AbortSignal }} ctx
 */
export async function currentWeather(args, ctx) {
  const key = ctx.env.OPENWEATHER_API_KEY;
  if (!key) throw new Error('OPENWEATHER_API_KEY is not set; the operator must grant it to this plugin.');
  const url = new URL(ctx.env.OPENWEATHER_ENDPOINT || DEFAULT_ENDPOINT);
  url.searchParams.set('q', args.city);
  url.searchParams.set('units', args.units ?? 'metric');
  url.searchParams.set('appid', key);
  const response = await fetch(url, { signal: ctx.signal, headers: { accept: 'application/json' } });
  if (response.status === 404)
    throw new Error(`No city called "${args.city}" was found. Try adding the country code, e.g. "Paris,FR".`);
  if (response.status === 401)
    throw new Error('The weather service rejected the API key (401). Ask the operator to check OPENWEATHER_API_KEY.');
  if (response.status === 429) throw new Error('The weather service rate limit was hit (429). Try again in a minute.');
  if (!response.ok) throw new Error(`The weather service answered ${response.status} ${response.statusText}.`);
  const body = /** @type {any} */ (await response.json());
  const unit = (args.units ?? 'metric') === 'metric' ? 'C' : 'F';
  return {
    city: body.name,
    country: body.sys?.country ?? null,
    conditions: body.weather?.[0]?.description ?? null,
    temperature: body.main?.temp ?? null,
    feelsLike: body.main?.feels_like ?? null,
    unit,
    humidityPercent: body.main?.humidity ?? null,
    windSpeed: body.wind?.speed ?? null,
  };
}
