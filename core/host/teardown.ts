/**
 * What the host's start-up steps opened, closed in reverse: each step adds
 * what it opened as it opens it, so a step that fails leaves nothing running
 * and `close()` undoes the start in order.
 */

/** Something a step opened. */
interface Closable {
  close(): Promise<void> | void;
}

/** A stack of closers. */
export class Teardown {
  private readonly opened: Closable[] = [];

  /** Adds what a step opened; returns it. */
  add<T extends Closable>(closable: T): T {
    this.opened.push(closable);
    return closable;
  }

  /** Closes everything added, last first; each step's own parts close together. */
  async close(): Promise<void> {
    while (this.opened.length) await this.opened.pop()!.close();
  }
}
