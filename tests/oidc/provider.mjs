// The OpenID provider of the single sign-on tests (tests/blackbox/oidc.rs):
// the certified `oidc-provider` package on a loopback port, with a test
// control API instead of a login form.
//
// Start: node provider.mjs; it prints "READY <port>" once it listens.
// Control (JSON bodies):
//   POST /test/setup   {client_id, client_secret, redirect_uri}: registers
//                      the client (the provider starts once this is known)
//   POST /test/account {sub, email, email_verified, name}: who signs in next
//   POST /test/tamper  {mode}: how the next ID tokens are altered and
//                      re-signed: "audience" (for another client),
//                      "expired", "issuer", "nonce", "foreign-key" (signed by
//                      a key the provider never published), or null
//   POST /test/rotate  {}: signs with a new key from now on
//   GET  /test/stats   {discovery, jwks, token}: how often each was asked
// Everything else is the provider itself.

import http from 'node:http';
import Provider from 'oidc-provider';
import * as jose from 'jose';

const server = http.createServer();
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const port = server.address().port;
const issuer = `http://127.0.0.1:${port}`;

let provider = null;
let account = { sub: 'alice-1', email: 'alice@example.org', email_verified: true, name: 'Alice' };
let tamper = null;
const stats = { discovery: 0, jwks: 0, token: 0 };

async function newKey(kid) {
  const { privateKey } = await jose.generateKeyPair('RS256', { extractable: true });
  const jwk = await jose.exportJWK(privateKey);
  return { ...jwk, kid, alg: 'RS256', use: 'sig' };
}
let signingKey = await newKey('key-1');
let keys = [signingKey];
const foreignKey = await newKey('key-1');

function readJson(req) {
  return new Promise((resolve, reject) => {
    let body = '';
    req.on('data', (c) => { body += c; });
    req.on('end', () => { try { resolve(body ? JSON.parse(body) : {}); } catch (e) { reject(e); } });
  });
}

function reply(res, status, value) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(value));
}

function build(client) {
  const p = new Provider(issuer, {
    clients: [{
      client_id: client.client_id,
      client_secret: client.client_secret,
      redirect_uris: [client.redirect_uri],
      grant_types: ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_basic',
    }],
    jwks: { keys },
    pkce: { required: () => true },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    features: { devInteractions: { enabled: false } },
    interactions: { url: (ctx, interaction) => `/interaction/${interaction.uid}` },
    cookies: { keys: ['cashkeeper-test-cookie-key'] },
    async findAccount(ctx, sub) {
      const a = account.sub === sub ? account : { sub };
      return { accountId: sub, async claims() { return { ...a }; } };
    },
  });
  p.use(async (ctx, next) => {
    if (ctx.path === '/.well-known/openid-configuration') stats.discovery += 1;
    if (ctx.path === '/jwks') stats.jwks += 1;
    if (ctx.path === '/token') stats.token += 1;
    await next();
    if (ctx.path === '/token' && tamper && ctx.body && ctx.body.id_token) {
      ctx.body = { ...ctx.body, id_token: await altered(ctx.body.id_token) };
    }
  });
  return p;
}

async function altered(idToken) {
  const claims = jose.decodeJwt(idToken);
  const now = Math.floor(Date.now() / 1000);
  let key = signingKey;
  if (tamper === 'audience') claims.aud = 'another-app';
  if (tamper === 'expired') { claims.iat = now - 7200; claims.exp = now - 3600; }
  if (tamper === 'issuer') claims.iss = 'http://127.0.0.1:1/elsewhere';
  if (tamper === 'nonce') claims.nonce = 'not-the-nonce';
  if (tamper === 'foreign-key') key = foreignKey;
  const privateKey = await jose.importJWK(key, 'RS256');
  return new jose.SignJWT(claims)
    .setProtectedHeader({ alg: 'RS256', kid: key.kid, typ: 'JWT' })
    .sign(privateKey);
}

async function finishInteraction(req, res) {
  const details = await provider.interactionDetails(req, res);
  const grant = new provider.Grant({ accountId: account.sub, clientId: details.params.client_id });
  grant.addOIDCScope(details.params.scope);
  const grantId = await grant.save();
  await provider.interactionFinished(req, res, {
    login: { accountId: account.sub },
    consent: { grantId },
  }, { mergeWithLastSubmission: false });
}

let client = null;
server.on('request', async (req, res) => {
  try {
    if (req.url === '/test/setup' && req.method === 'POST') {
      client = await readJson(req);
      provider = build(client);
      return reply(res, 200, { issuer });
    }
    if (req.url === '/test/account' && req.method === 'POST') {
      account = await readJson(req);
      return reply(res, 200, account);
    }
    if (req.url === '/test/tamper' && req.method === 'POST') {
      tamper = (await readJson(req)).mode ?? null;
      return reply(res, 200, { tamper });
    }
    if (req.url === '/test/rotate' && req.method === 'POST') {
      signingKey = await newKey(`key-${keys.length + 1}`);
      keys = [signingKey, ...keys];
      provider = build(client);
      return reply(res, 200, { kid: signingKey.kid });
    }
    if (req.url === '/test/stats') return reply(res, 200, stats);
    if (!provider) return reply(res, 503, { error: 'POST /test/setup first' });
    if (req.url.startsWith('/interaction/')) return await finishInteraction(req, res);
    return provider.callback()(req, res);
  } catch (e) {
    reply(res, 500, { error: String(e && e.stack || e) });
  }
});

process.stdout.write(`READY ${port}\n`);
