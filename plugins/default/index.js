// @ts-check

/** The `default` toolset: one name for the everyday toolsets, so a config can enable them together. */
export default {
  apiVersion: 1,
  toolsets: {
    default: { description: 'The everyday toolsets', includes: ['file', 'terminal', 'web', 'todo'] },
  },
  permissions: { network: false, env: [], fsRead: [], fsWrite: [] },
  tools: [],
};
