import { HttpConnection } from '/work/main/dist/bench/oauth-http.js';
import { runLoad } from '/work/main/dist/bench/oauth-load.js';
const port = Number(process.argv[2]); const pid = Number(process.argv[3]); const path = process.argv[4];
const clients = Array.from({ length: 32 }, () => new HttpConnection('127.0.0.1', port));
const body = 'grant_type=client_credentials&scope=api%3Aread';
const r = await runLoad(clients, async (c) => { const res = await c.request('POST', path, { 'content-type': 'application/x-www-form-urlencoded', authorization: 'Basic YTpi' }, body); return res.status === 200 ? true : 'x' + res.status; }, { warmupMs: 1000, durationMs: 4000 }, pid);
console.log(path, Math.round(r.rps), 'req/s p50', r.p50.toFixed(2), 'server cpu', r.serverCpu, 'us/req', (r.serverCpu / r.rps * 1e6).toFixed(1), 'client cpu', r.clientCpu.toFixed(2), JSON.stringify(r.errorSamples));
process.exit(0);
