/**
 * A server-sent-events parser for a stream read with fetch() (EventSource cannot send the
 * Authorization header): feed it the text as it arrives, it calls back once per complete event.
 * Comment lines (`: ping`) are skipped; `data:` lines join with newlines, as the spec says.
 */

/** One event of the stream: its name (`message` when none was given) and its data. */
export interface ServerEvent {
  event: string;
  data: string;
}

/** A parser: `push` each decoded chunk of the stream. */
export interface SseParser {
  push(chunk: string): void;
}

/** A parser that calls `onEvent` for every complete event pushed into it. */
export function sseParser(onEvent: (event: ServerEvent) => void): SseParser {
  let buffer = '';
  let name = '';
  let data: string[] = [];
  const line = (text: string): void => {
    if (text === '') {
      if (data.length > 0) onEvent({ event: name || 'message', data: data.join('\n') });
      name = '';
      data = [];
      return;
    }
    if (text.startsWith(':')) return;
    const colon = text.indexOf(':');
    const field = colon < 0 ? text : text.slice(0, colon);
    const value = colon < 0 ? '' : text.slice(colon + 1).replace(/^ /, '');
    if (field === 'event') name = value;
    else if (field === 'data') data.push(value);
  };
  return {
    push(chunk) {
      buffer += chunk;
      let end: RegExpExecArray | null;
      while ((end = /\r\n|\r(?!$)|\n/.exec(buffer))) {
        line(buffer.slice(0, end.index));
        buffer = buffer.slice(end.index + end[0].length);
      }
    },
  };
}
