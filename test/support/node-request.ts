import { request } from 'node:http';

/**
 * A request sent with node:http, for what fetch cannot send: a header given as an array goes
 * out as one header line per value.
 */
export function nodeRequest(url: string, method: string, headers: Record<string, string | string[]>, body = ''): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}
