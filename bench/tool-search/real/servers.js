/**
 * The real MCP servers of the tool-search evaluation catalogue: each a published npm package
 * pinned in servers/package.json, started with node the way a desktop client would start it.
 *
 * `bin` names the package's bin entry when it has several (default: its only one, or the one
 * named like the package); `args` follow the bin. Keys, tokens and connection strings are fake on
 * purpose: listing tools must work with no account and no network. `{tmp}` in an arg or a value is
 * the snapshot's scratch folder.
 */

/** One server: its toolshed name, its package and version, how it is started, and why so. */
export const servers = [
  {
    name: 'filesystem',
    package: '@modelcontextprotocol/server-filesystem',
    version: '2026.8.31',
    args: ['{tmp}/files'],
    env: {},
    note: 'the allowed folder is a scratch folder',
  },
  {
    name: 'memory',
    package: '@modelcontextprotocol/server-memory',
    version: '2026.8.31',
    env: { MEMORY_FILE_PATH: '{tmp}/memory.jsonl' },
  },
  {
    name: 'everything',
    package: '@modelcontextprotocol/server-everything',
    version: '2026.8.31',
    args: ['stdio'],
    env: {},
    note: 'the protocol test server; sampling is not offered, so tools that need it are not listed',
  },
  {
    name: 'sequential-thinking',
    package: '@modelcontextprotocol/server-sequential-thinking',
    version: '2026.8.31',
    env: {},
  },
  {
    name: 'github',
    package: '@modelcontextprotocol/server-github',
    version: '2025.4.8',
    env: { GITHUB_PERSONAL_ACCESS_TOKEN: 'fake' },
  },
  {
    name: 'gitlab',
    package: '@modelcontextprotocol/server-gitlab',
    version: '2025.4.25',
    env: { GITLAB_PERSONAL_ACCESS_TOKEN: 'fake', GITLAB_API_URL: 'http://127.0.0.1:9/api/v4' },
  },
  {
    name: 'slack',
    package: '@modelcontextprotocol/server-slack',
    version: '2025.4.25',
    env: { SLACK_BOT_TOKEN: 'xoxb-fake', SLACK_TEAM_ID: 'T00000000' },
  },
  {
    name: 'google-maps',
    package: '@modelcontextprotocol/server-google-maps',
    version: '0.6.2',
    env: { GOOGLE_MAPS_API_KEY: 'fake' },
  },
  {
    name: 'brave-search',
    package: '@modelcontextprotocol/server-brave-search',
    version: '0.6.2',
    env: { BRAVE_API_KEY: 'fake' },
  },
  {
    name: 'puppeteer',
    package: '@modelcontextprotocol/server-puppeteer',
    version: '2025.5.12',
    env: {},
    note: 'installed without its browser download; the browser starts only at a call',
  },
  {
    name: 'postgres',
    package: '@modelcontextprotocol/server-postgres',
    version: '0.6.2',
    args: ['postgresql://fake:fake@127.0.0.1:9/fake'],
    env: {},
  },
  {
    name: 'gdrive',
    package: '@modelcontextprotocol/server-gdrive',
    version: '2025.1.14',
    env: { GDRIVE_CREDENTIALS_PATH: '{tmp}/gdrive-credentials.json', GDRIVE_OAUTH_PATH: '{tmp}/gcp-oauth.keys.json' },
  },
  {
    name: 'aws-kb-retrieval',
    package: '@modelcontextprotocol/server-aws-kb-retrieval',
    version: '0.6.2',
    env: { AWS_ACCESS_KEY_ID: 'fake', AWS_SECRET_ACCESS_KEY: 'fake', AWS_REGION: 'us-east-1' },
  },
  {
    name: 'everart',
    package: '@modelcontextprotocol/server-everart',
    version: '0.6.2',
    env: { EVERART_API_KEY: 'fake' },
  },
  {
    name: 'playwright',
    package: '@playwright/mcp',
    version: '0.0.86',
    args: ['--headless', '--caps=vision,pdf,testing,tracing'],
    env: {},
    note: 'every optional capability on; no browser is installed or started to list',
  },
  {
    name: 'chrome-devtools',
    package: 'chrome-devtools-mcp',
    version: '1.11.0',
    bin: 'chrome-devtools-mcp',
    args: ['--headless', '--isolated'],
    env: { CHROME_DEVTOOLS_MCP_NO_USAGE_STATISTICS: '1' },
  },
  {
    name: 'notion',
    package: '@notionhq/notion-mcp-server',
    version: '2.5.2',
    env: { NOTION_TOKEN: 'fake' },
  },
  {
    name: 'kubernetes',
    package: 'mcp-server-kubernetes',
    version: '4.1.7',
    env: { KUBECONFIG: '{tmp}/kubeconfig' },
  },
  {
    name: 'circleci',
    package: '@circleci/mcp-server-circleci',
    version: '0.20.0',
    env: { CIRCLECI_TOKEN: 'fake' },
  },
  {
    name: 'hubspot',
    package: '@hubspot/mcp-server',
    version: '0.4.0',
    env: { PRIVATE_APP_ACCESS_TOKEN: 'fake' },
  },
  {
    name: 'firecrawl',
    package: 'firecrawl-mcp',
    version: '3.26.0',
    env: { FIRECRAWL_API_KEY: 'fake' },
  },
  {
    name: 'exa',
    package: 'exa-mcp-server',
    version: '3.4.1',
    env: { EXA_API_KEY: 'fake' },
  },
  {
    name: 'tavily',
    package: 'tavily-mcp',
    version: '0.2.22',
    env: { TAVILY_API_KEY: 'fake' },
  },
  {
    name: 'context7',
    package: '@upstash/context7-mcp',
    version: '4.1.1',
    env: {},
  },
  {
    name: 'figma',
    package: 'figma-developer-mcp',
    version: '0.13.2',
    args: ['--stdio'],
    env: { FIGMA_API_KEY: 'fake' },
  },
  {
    name: 'desktop-commander',
    package: '@wonderwhy-er/desktop-commander',
    version: '0.2.52',
    bin: 'desktop-commander',
    env: {},
  },
  {
    name: 'elasticsearch',
    package: '@elastic/mcp-server-elasticsearch',
    version: '0.3.1',
    env: { ES_URL: 'http://127.0.0.1:9', ES_API_KEY: 'fake' },
  },
  {
    name: 'playwright-ea',
    package: '@executeautomation/playwright-mcp-server',
    version: '1.0.12',
    env: {},
  },
  {
    name: 'gitlab-zereight',
    package: '@zereight/mcp-gitlab',
    version: '2.1.64',
    bin: 'mcp-gitlab',
    env: {
      GITLAB_PERSONAL_ACCESS_TOKEN: 'fake',
      GITLAB_API_URL: 'http://127.0.0.1:9/api/v4',
      USE_PIPELINE: 'true',
      USE_GITLAB_WIKI: 'true',
      USE_MILESTONE: 'true',
    },
    note: 'pipelines, wiki and milestones on',
  },
  {
    name: 'airtable',
    package: 'airtable-mcp-server',
    version: '1.14.0',
    env: { AIRTABLE_API_KEY: 'fake' },
  },
  {
    name: 'linear',
    package: '@tacticlaunch/mcp-linear',
    version: '1.4.3',
    env: { LINEAR_API_TOKEN: 'fake' },
  },
  {
    name: 'launchdarkly',
    package: '@launchdarkly/mcp-server',
    version: '0.6.2',
    args: ['start', '--api-key', 'fake'],
    env: {},
  },
  {
    name: 'postman',
    package: '@postman/postman-mcp-server',
    version: '2.13.0',
    args: ['--full'],
    env: { POSTMAN_API_KEY: 'fake' },
    note: 'the full tool set',
  },
  {
    name: 'mapbox',
    package: '@mapbox/mcp-server',
    version: '0.14.0',
    env: { MAPBOX_ACCESS_TOKEN: 'fake' },
  },
  {
    name: 'jira',
    package: '@aashari/mcp-server-atlassian-jira',
    version: '3.3.0',
    env: { ATLASSIAN_SITE_NAME: 'fake', ATLASSIAN_USER_EMAIL: 'fake@example.com', ATLASSIAN_API_TOKEN: 'fake' },
  },
  {
    name: 'bitbucket',
    package: '@aashari/mcp-server-atlassian-bitbucket',
    version: '3.1.0',
    env: { ATLASSIAN_BITBUCKET_USERNAME: 'fake', ATLASSIAN_BITBUCKET_APP_PASSWORD: 'fake' },
  },
  {
    name: 'discord',
    package: 'mcp-discord',
    version: '1.3.4',
    env: { DISCORD_TOKEN: 'fake' },
  },
  {
    name: 'youtube-transcript',
    package: '@kimtaeyoon83/mcp-server-youtube-transcript',
    version: '0.1.1',
    env: {},
  },
  {
    name: 'gmail',
    package: '@gongrzhe/server-gmail-autoauth-mcp',
    version: '1.1.11',
    env: { GMAIL_OAUTH_PATH: '{tmp}/gcp-oauth.keys.json', GMAIL_CREDENTIALS_PATH: '{tmp}/gmail-credentials.json' },
  },
  {
    name: 'pinecone',
    package: '@pinecone-database/mcp',
    version: '0.3.0',
    env: { PINECONE_API_KEY: 'fake' },
  },
  {
    name: 'currents',
    package: '@currents/mcp',
    version: '2.1.1',
    env: { CURRENTS_API_KEY: 'fake' },
  },
  {
    name: 'shopify-dev',
    package: '@shopify/dev-mcp',
    version: '1.16.0',
    env: { OPT_OUT_INSTRUMENTATION: 'true' },
  },
  {
    name: 'perplexity',
    package: '@perplexity-ai/mcp-server',
    version: '1.2.1',
    env: { PERPLEXITY_API_KEY: 'fake' },
  },
  {
    name: 'lara',
    package: '@translated/lara-mcp',
    version: '1.0.6',
    env: { LARA_ACCESS_KEY_ID: 'fake', LARA_ACCESS_KEY_SECRET: 'fake' },
  },
  {
    name: 'mongodb',
    package: 'mongodb-mcp-server',
    version: '3.0.4',
    env: {
      MDB_MCP_CONNECTION_STRING: 'mongodb://127.0.0.1:9/fake',
      MDB_MCP_API_CLIENT_ID: 'fake',
      MDB_MCP_API_CLIENT_SECRET: 'fake',
      MDB_MCP_TELEMETRY: 'disabled',
      DO_NOT_TRACK: '1',
    },
    note: 'fake Atlas API credentials make it list its Atlas tools too',
  },
];

/** Servers tried and left out, each with why (see README.md). */
export const dropped = [
  {
    name: 'auth0',
    reason: 'needs a stored Auth0 login (its `init` command) before it starts: exits saying so',
    package: '@auth0/auth0-mcp-server',
    version: '0.1.0-beta.19',
    args: ['run'],
    env: {},
  },
  {
    name: 'azure-devops',
    reason:
      'needs the keytar native addon, whose prebuilt binary an install script downloads (installs here run ' +
      'with --ignore-scripts): exits with Cannot find module keytar.node',
    package: '@azure-devops/mcp',
    version: '2.10.0',
    args: ['fake-org'],
    env: {},
  },
  {
    name: 'heroku',
    reason:
      "imports '@modelcontextprotocol/sdk/dist/esm/server/mcp' without an extension, which the SDK's exports " +
      'map refuses with the SDK version its own range (^1.26.0) resolves to: exits with Cannot find module',
    package: '@heroku/mcp-server',
    version: '1.2.8',
    env: { HEROKU_API_KEY: 'fake' },
  },
  {
    name: 'mysql',
    reason: 'answers the handshake, then exits with code 1 when it cannot reach its database: needs a live MySQL',
    package: '@benborla29/mcp-server-mysql',
    version: '2.0.9',
    env: { MYSQL_HOST: '127.0.0.1', MYSQL_PORT: '9', MYSQL_USER: 'fake', MYSQL_PASS: 'fake', MYSQL_DB: 'fake' },
  },
  {
    name: 'railway',
    reason: 'is a stub now: the Railway MCP moved into the Railway CLI, which it runs and is not installed',
    package: '@railway/mcp-server',
    version: '0.1.12',
    env: {},
  },
  {
    name: 'redis',
    reason: 'connects to Redis before it lists anything and exits on ECONNREFUSED: needs a live Redis',
    package: '@modelcontextprotocol/server-redis',
    version: '2025.4.25',
    args: ['redis://127.0.0.1:9'],
    env: {},
  },
  {
    name: 'stripe',
    reason: "0.3.x is a local proxy to Stripe's remote MCP server: the handshake waits on the network and times out",
    package: '@stripe/mcp',
    version: '0.3.3',
    args: ['--tools=all', '--api-key=sk_test_fake'],
    env: {},
  },
  {
    name: 'supabase',
    reason: 'fetches from the Supabase API during its handshake: fails with fetch failed',
    package: '@supabase/mcp-server-supabase',
    version: '0.13.0',
    env: { SUPABASE_ACCESS_TOKEN: 'fake' },
  },
  {
    name: 'upstash',
    reason: 'calls the Upstash API at start: exits with a DNS error',
    package: '@upstash/mcp-server',
    version: '0.3.0',
    args: ['run', 'fake@example.com', 'fake'],
    env: {},
  },
];
