/** One Server-Sent Event as received: its `id` and its `data` parsed as JSON. */
export interface ReceivedEvent {
  id: string;
  data: any;
}

/**
 * A consumer of a Server-Sent Events stream over fetch: collects the events as they come,
 * and can go away mid-stream (`close`), as a consumer that loses its connection does.
 */
export class SseConsumer {
  readonly events: ReceivedEvent[] = [];
  readonly status: number;
  readonly headers: Headers;
  private readonly abort: AbortController;
  private readonly done: Promise<void>;
  private waiters: Array<() => void> = [];

  private constructor(res: Response, abort: AbortController) {
    this.status = res.status;
    this.headers = res.headers;
    this.abort = abort;
    this.done = this.read(res);
  }

  static async open(url: string, headers: Record<string, string>): Promise<SseConsumer> {
    const abort = new AbortController();
    const res = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: abort.signal });
    return new SseConsumer(res, abort);
  }

  private async read(res: Response): Promise<void> {
    if (!res.body) return;
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const fields = new Map<string, string>();
          for (const line of block.split('\n')) {
            if (line.startsWith(':') || !line.includes(':')) continue;
            const at = line.indexOf(':');
            fields.set(line.slice(0, at), line.slice(at + 1).replace(/^ /, ''));
          }
          if (fields.has('data')) this.events.push({ id: fields.get('id') ?? '', data: JSON.parse(fields.get('data')!) });
          for (const w of this.waiters.splice(0)) w();
        }
      }
    } catch {
      // Closed by this side.
    }
  }

  /** Resolves once `count` events have arrived (rejects after `ms` of real time). */
  async until(count: number, ms = 10_000): Promise<void> {
    const deadline = Date.now() + ms;
    while (this.events.length < count) {
      if (Date.now() > deadline) throw new Error(`${this.events.length} of ${count} events arrived`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 50);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  async close(): Promise<void> {
    this.abort.abort();
    await this.done;
  }
}
