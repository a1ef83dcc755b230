// @ts-check
import { webFetchTool } from './lib/web-fetch.js';
import { webSearchTool } from './lib/web-search.js';

/** The `web` toolset: fetch pages by URL and search the web through the Brave Search API. */
export default {
  apiVersion: 1,
  toolsets: { web: { description: 'Fetch web pages and search the web' } },
  permissions: {
    network: true,
    env: ['BRAVE_API_KEY', 'BRAVE_SEARCH_ENDPOINT', 'WEB_FETCH_ALLOW_CIDRS'],
    fsRead: [],
    fsWrite: [],
  },
  tools: [webFetchTool, webSearchTool],
};
