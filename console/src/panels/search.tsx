/**
 * The "Search" panel: a tool_search query (`POST api/search`) and its ranking, with each result's
 * score, whether it is deferred, and which fields each query term matched.
 */
import { useState } from 'preact/hooks';
import { describeError, post } from '../api.js';
import type { SearchAnswer } from '../../../core/console/api-types.js';
import { Panel } from './panel.js';

/** The search form and its results. */
export function Search() {
  const [query, setQuery] = useState('');
  const [answer, setAnswer] = useState<SearchAnswer>();
  const [failure, setFailure] = useState<string>();
  const run = async () => {
    setFailure(undefined);
    try {
      setAnswer(await post<SearchAnswer>('search', { query, limit: 20 }));
    } catch (error) {
      setFailure(describeError(error));
    }
  };
  return (
    <Panel title="Search" id="search">
      <form
        class="toolbar"
        onSubmit={(event) => {
          event.preventDefault();
          if (query.trim()) void run();
        }}
      >
        <input
          type="search"
          aria-label="Search query"
          placeholder="what tool_search would be asked"
          value={query}
          onInput={(event) => setQuery(event.currentTarget.value)}
        />
        <button type="submit">Search</button>
      </form>
      {failure && <p class="problem">{failure}</p>}
      {answer && (
        <>
          <p class="muted">
            {answer.results.length} results from {answer.indexed} indexed tools
          </p>
          <table>
            <thead>
              <tr>
                <th scope="col">rank</th>
                <th scope="col">tool</th>
                <th scope="col">score</th>
                <th scope="col">deferred</th>
                <th scope="col">matched</th>
              </tr>
            </thead>
            <tbody>
              {answer.results.map((result, index) => (
                <tr key={result.name}>
                  <td>{index + 1}</td>
                  <td class="name">{result.name}</td>
                  <td>{result.score.toFixed(2)}</td>
                  <td>{result.deferred ? 'deferred' : 'no'}</td>
                  <td>
                    {Object.entries(result.matched)
                      .map(([term, fields]) => `${term}: ${fields.join(', ')}`)
                      .join('; ')}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </Panel>
  );
}
