// The baseline: a bare Fastify route answering a small JSON body, on the same machine in the same run.
import Fastify from 'fastify';

const app = Fastify();
app.get('/bare', async () => ({ data: { ok: true, time: Date.now() } }));
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
