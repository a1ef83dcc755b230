/**
 * Query-side synonyms for tool search: abbreviations and everyday words an
 * agent types for the words tool descriptions use ("dm" for direct message,
 * "picture" for image, "remember" for memory). A query word adds its
 * synonyms to the query; documents are indexed as written. Kept because the
 * benchmark measured the gain (docs/tool-search.md); each entry is general
 * tool vocabulary, not a particular tool's name.
 */
export const SYNONYMS: Readonly<Record<string, readonly string[]>> = {
  // abbreviations
  dm: ['direct', 'message'],
  pr: ['pull', 'request'],
  mr: ['merge', 'request'],
  msg: ['message'],
  repo: ['repository'],
  db: ['database'],
  doc: ['document'],
  docs: ['document', 'documentation'],
  url: ['link', 'page'],
  k8s: ['kubernetes'],
  kubectl: ['kubernetes', 'k8s'],
  kubernetes: ['k8s'],
  oncall: ['call'],
  rollback: ['roll', 'back'],
  // messaging
  text: ['sms', 'message'],
  sms: ['text', 'message'],
  email: ['mail'],
  emails: ['mail', 'email'],
  mail: ['email'],
  // media
  picture: ['image', 'photo'],
  photo: ['image', 'picture'],
  image: ['picture', 'photo'],
  // scheduling
  meeting: ['event'],
  meetings: ['events', 'event'],
  appointment: ['event', 'meeting'],
  schedule: ['calendar'],
  // verbs
  remove: ['delete'],
  delete: ['remove'],
  make: ['create'],
  new: ['create'],
  add: ['create'],
  find: ['search'],
  lookup: ['search'],
  show: ['get', 'list'],
  download: ['get'],
  upload: ['put'],
  deploy: ['deployment'],
  remember: ['memory', 'store'],
  recall: ['memory'],
  // things
  ticket: ['issue'],
  bug: ['issue'],
  link: ['url'],
  invoice: ['bill'],
  bill: ['invoice'],
  charge: ['payment'],
  pay: ['payment'],
  sheet: ['spreadsheet'],
  spreadsheet: ['sheet'],
  wiki: ['page'],
  alert: ['monitor', 'incident'],
  page: ['incident', 'alert'],
  directions: ['route'],
  route: ['directions'],
  rain: ['weather', 'forecast'],
  snow: ['weather', 'forecast'],
  temperature: ['weather'],
};
