/**
 * COPY … FROM STDIN of text already in memory, as a query object for pg's `client.query`. Written
 * here rather than taken from pg-copy-streams, whose stream, when the server refuses the COPY while
 * part of the data still waits for the socket to drain, later writes through the connection it let
 * go of at the error: a throw no caller can catch, which ends the thread
 * (brianc/node-pg-copy-streams#171); and data written that late would reach the server inside the
 * connection's next COPY. Here every byte goes to the socket at once, in order, when the server asks
 * for the data, so nothing of one COPY can follow its end, whatever the server answers.
 */
import type { Connection } from 'pg';

/** What of pg's connection a COPY FROM uses (public methods of pg's Connection, not in its types). */
interface CopyingConnection {
  query(text: string): void;
  sendCopyFromChunk(chunk: Buffer): void;
  endCopyFrom(): void;
}

export class CopyIn {
  /** Settles when the server is ready again: the rows copied, or the server's error (code and all). */
  readonly done: Promise<number>;
  private resolve!: (rows: number) => void;
  private reject!: (e: Error) => void;
  private rows = 0;

  constructor(
    readonly text: string,
    private readonly chunks: Iterable<string | Buffer>,
  ) {
    this.done = new Promise<number>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
  }

  submit(connection: Connection): void {
    (connection as unknown as CopyingConnection).query(this.text);
  }

  handleCopyInResponse(connection: Connection): void {
    const c = connection as unknown as CopyingConnection;
    for (const chunk of this.chunks) c.sendCopyFromChunk(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
    c.endCopyFrom();
  }

  handleCommandComplete(msg: { text?: string }): void {
    const m = /COPY (\d+)/.exec(msg.text ?? '');
    if (m) this.rows = Number(m[1]);
  }

  /** At the server's error pg lets the query go (the ReadyForQuery after it reaches no query), and when the connection ends. */
  handleError(e: Error): void {
    this.reject(e);
  }

  handleReadyForQuery(): void {
    this.resolve(this.rows);
  }

  /** pg replaces it with its timer's when the client has a query_timeout; nothing to do otherwise. */
  callback(): void {}
}
