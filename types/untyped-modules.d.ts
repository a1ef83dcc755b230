// Dependencies of the first-party plugins that ship no type declarations;
// only the plugins' type check (tsconfig.plugins.json) reads this file.
declare module 'html-to-text';
