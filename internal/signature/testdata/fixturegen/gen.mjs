// Generator of internal/signature/testdata/provider-fixtures.json: one or
// more requests per provider preset. Where the provider publishes an npm
// SDK, the SDK signs the request when it can sign, and otherwise (it only
// verifies) the request is signed by the provider's documented recipe and
// the SDK's own verifier must accept it before it is written; a forged copy
// must be refused. Each fixture records the SDK package and version in
// "sdk", or "none" with the reason in "source" where the provider has no
// official signer or verifier on npm.
//
// Run with `npm ci && npm run gen` in this folder; the Go tests only read
// the JSON and never need Node.
import crypto from "node:crypto";
import fs from "node:fs";
import { createRequire } from "node:module";
import "@shopify/shopify-api/adapters/node";

const require = createRequire(import.meta.url);
const version = (pkg) => pkg + "@" + JSON.parse(fs.readFileSync(`./node_modules/${pkg}/package.json`)).version;

const Stripe = require("stripe");
const { sign: octokitSign, verify: octokitVerify } = await import("@octokit/webhooks-methods");
const { shopifyApi, ApiVersion, LogSeverity } = await import("@shopify/shopify-api");
const { createSHA256HMAC } = await import("@shopify/shopify-api/runtime");
const { Webhook: StandardWebhook } = require("standardwebhooks");
const { Webhook: SvixWebhook } = require("svix");
const { verifySlackRequest } = require("@slack/bolt");
const twilio = require("twilio");
const { Paddle } = require("@paddle/paddle-node-sdk");
const { AwsLambdaReceiver: ZoomReceiver } = require("@zoom/rivet/meetings");
const { verifyKey: discordVerifyKey } = require("discord-interactions");
const { EventWebhook } = require("@sendgrid/eventwebhook");
const { WebhooksHelper: SquareWebhooks } = require("square");
const { LinearWebhookClient } = await import("@linear/sdk/webhooks");

const out = [];
const check = (ok, name) => {
  if (!ok) throw new Error(name + ": the provider's library disagrees");
};
const throws = (f) => {
  try {
    f();
    return false;
  } catch {
    return true;
  }
};
const hmac = (alg, key, data, enc) => crypto.createHmac(alg, key).update(data).digest(enc);
// flip changes the last character of a signature, keeping its alphabet.
const flip = (s) => s.slice(0, -2) + (s.at(-2) === "a" ? "b" : "a") + s.at(-1);
const push = (f) => out.push({ expected_valid: true, ...f });

// Every signed time is now, so that each library's own clock accepts it;
// the fixture records it and the Go tests check at that time.
const T = Math.floor(Date.now() / 1000);

// Stripe: the SDK signs (generateTestHeaderString) and verifies.
{
  const sdk = version("stripe");
  const stripe = new Stripe("sk_test_fixture");
  const secret = "whsec_fixture_stripe_0123456789";
  const body = `{"id":"evt_1Fixture","object":"event","api_version":"2024-06-20","created":${T},"type":"invoice.paid","data":{"object":{"id":"in_1Fixture","object":"invoice"}}}`;
  const header = stripe.webhooks.generateTestHeaderString({ payload: body, secret, timestamp: T });
  check(!throws(() => stripe.webhooks.constructEvent(body, header, secret, 300, undefined, T)), "stripe");
  push({ name: "stripe-sdk", scheme: "stripe", sdk, secret, headers: { "Stripe-Signature": header, "Content-Type": "application/json" }, body, now: T,
    source: "signed by stripe.webhooks.generateTestHeaderString; stripe.webhooks.constructEvent accepted it" });
  const forged = header.replace(/v1=([0-9a-f]+)/, (_, h) => "v1=" + flip(h));
  check(throws(() => stripe.webhooks.constructEvent(body, forged, secret, 300, undefined, T)), "stripe-forged");
  push({ name: "stripe-sdk-forged", scheme: "stripe", sdk, secret, headers: { "Stripe-Signature": forged, "Content-Type": "application/json" }, body, now: T, expected_valid: false,
    source: "stripe.webhooks.constructEvent refused it" });
}

// GitHub: @octokit/webhooks-methods signs and verifies.
{
  const sdk = version("@octokit/webhooks-methods");
  const secret = "github-fixture-secret";
  const body = `{"ref":"refs/heads/main","before":"0000000000000000000000000000000000000000","after":"6113728f27ae82c7b1a177c8d03f9e96e0adf246","repository":{"id":35129377,"full_name":"octo-org/octo-repo"},"pusher":{"name":"octocat"}}`;
  const sig = await octokitSign(secret, body);
  check(await octokitVerify(secret, body, sig), "github");
  const headers = { "X-Hub-Signature-256": sig, "X-GitHub-Delivery": "72d3162e-cc78-11e3-81ab-4c9367dc0958", "X-GitHub-Event": "push", "Content-Type": "application/json" };
  push({ name: "github-sdk", scheme: "github", sdk, secret, headers, body, source: "signed by sign(); verify() accepted it" });
  const forged = "sha256=" + flip(sig.slice(7));
  check(!(await octokitVerify(secret, body, forged)), "github-forged");
  push({ name: "github-sdk-forged", scheme: "github", sdk, secret, headers: { ...headers, "X-Hub-Signature-256": forged }, body, expected_valid: false, source: "verify() refused it" });
}

// Shopify: @shopify/shopify-api's own HMAC (createSHA256HMAC) signs and
// shopify.webhooks.validate verifies.
{
  const sdk = version("@shopify/shopify-api");
  const secret = "shpss_fixture_client_secret";
  const shopify = shopifyApi({ apiKey: "fixture", apiSecretKey: secret, scopes: [], hostName: "relay.example.com", apiVersion: ApiVersion.October24, isEmbeddedApp: false, logger: { level: LogSeverity.Error } });
  const body = `{"id":820982911946154508,"admin_graphql_api_id":"gid://shopify/Order/820982911946154508","email":"jon@example.com","created_at":"2024-10-01T12:00:00-04:00","total_price":"403.00"}`;
  const sig = await createSHA256HMAC(secret, body);
  const headers = { "X-Shopify-Hmac-Sha256": sig, "X-Shopify-Topic": "orders/create", "X-Shopify-Shop-Domain": "fixture.myshopify.com", "X-Shopify-Api-Version": "2024-10", "X-Shopify-Webhook-Id": "b54557e4-bdd9-4b37-8a5f-bf7d70bcd043", "X-Shopify-Event-Id": "98880550-7158-44d4-b7cd-2c97c8a091b5", "X-Shopify-Triggered-At": "2024-10-01T16:00:00.000000Z", "Content-Type": "application/json" };
  const validate = (h) => shopify.webhooks.validate({ rawBody: body, rawRequest: { headers: Object.fromEntries(Object.entries(h).map(([k, v]) => [k.toLowerCase(), v])), method: "POST", url: "/webhooks/shopify" }, rawResponse: {} });
  check((await validate(headers)).valid, "shopify");
  push({ name: "shopify-sdk", scheme: "shopify", sdk, secret, headers, body, source: "signed by createSHA256HMAC; shopify.webhooks.validate accepted it" });
  const forged = { ...headers, "X-Shopify-Hmac-Sha256": crypto.createHmac("sha256", secret + "x").update(body).digest("base64") };
  check(!(await validate(forged)).valid, "shopify-forged");
  push({ name: "shopify-sdk-forged", scheme: "shopify", sdk, secret, headers: forged, body, expected_valid: false, source: "shopify.webhooks.validate refused it (signed with another secret)" });
}

// Standard Webhooks: the standardwebhooks package signs and verifies; svix
// signs the same scheme under svix-* headers.
{
  const secret = "whsec_" + Buffer.from("standard-fixture-secret-0123456789").toString("base64");
  const body = `{"type":"invoice.paid","timestamp":"${new Date(T * 1000).toISOString()}","data":{"id":"inv_1"}}`;
  for (const [pkg, Webhook, prefix] of [["standardwebhooks", StandardWebhook, "webhook"], ["svix", SvixWebhook, "svix"]]) {
    const sdk = version(pkg);
    const wh = new Webhook(secret);
    const id = `msg_${pkg}_fixture`;
    const sig = wh.sign(id, new Date(T * 1000), body);
    const headers = { [`${prefix}-id`]: id, [`${prefix}-timestamp`]: String(T), [`${prefix}-signature`]: sig, "Content-Type": "application/json" };
    check(!throws(() => wh.verify(body, headers)), pkg);
    push({ name: `standard-${pkg}-sdk`, scheme: "standard", sdk, secret, headers, body, now: T, source: "signed by Webhook.sign; Webhook.verify accepted it" });
    const forged = { ...headers, [`${prefix}-signature`]: "v1," + hmac("sha256", "other", `${id}.${T}.${body}`, "base64") };
    check(throws(() => wh.verify(body, forged)), pkg + "-forged");
    push({ name: `standard-${pkg}-sdk-forged`, scheme: "standard", sdk, secret, headers: forged, body, now: T, expected_valid: false, source: "Webhook.verify refused it" });
  }
}

// Slack: @slack/bolt only verifies; the request is signed by Slack's recipe
// (v0=hex HMAC-SHA256 of "v0:<ts>:<body>").
{
  const sdk = version("@slack/bolt");
  const secret = "8f742231b10e8888abcd99yyyzzz85a5";
  const body = `{"token":"z26uFbvR1xHJEdHE1OQiO6t8","team_id":"T061EG9RZ","api_app_id":"A0FFV41KK","event":{"type":"app_mention","user":"U061F7AUR","text":"<@U0LAN0Z89> hi","ts":"1515449522.000016","channel":"C0LAN2Q65"},"type":"event_callback","event_id":"Ev0LAN670R","event_time":${T}}`;
  const sig = "v0=" + hmac("sha256", secret, `v0:${T}:${body}`, "hex");
  const verify = (s) => !throws(() => verifySlackRequest({ signingSecret: secret, body, headers: { "x-slack-signature": s, "x-slack-request-timestamp": T }, nowMilliseconds: T * 1000 }));
  check(verify(sig), "slack");
  push({ name: "slack-sdk", scheme: "slack", sdk, secret, headers: { "X-Slack-Signature": sig, "X-Slack-Request-Timestamp": String(T), "Content-Type": "application/json" }, body, now: T,
    source: "signed by Slack's documented recipe (the SDK has no signer); verifySlackRequest accepted it" });
  check(!verify(flip(sig)), "slack-forged");
  push({ name: "slack-sdk-forged", scheme: "slack", sdk, secret, headers: { "X-Slack-Signature": flip(sig), "X-Slack-Request-Timestamp": String(T), "Content-Type": "application/json" }, body, now: T, expected_valid: false,
    source: "verifySlackRequest refused it" });
}

// GitLab sends its secret token itself; no GitLab npm library verifies.
push({ name: "gitlab-token", scheme: "gitlab", sdk: "none", secret: "gitlab-fixture-token",
  headers: { "X-Gitlab-Token": "gitlab-fixture-token", "X-Gitlab-Event": "Push Hook", "X-Gitlab-Webhook-UUID": "0f2b1c1e-1111-4222-8333-444455556666", "X-Gitlab-Event-UUID": "13792a34-cac6-4fda-95a8-c58e00a3954e", "Idempotency-Key": "908a6d9e-45fd-46c8-97e6-c4f350f219dd", "Content-Type": "application/json" },
  body: `{"object_kind":"push","event_name":"push","ref":"refs/heads/main","checkout_sha":"da1560886d4f094c3e6c9ef40349f7d38b5d27d7"}`,
  source: "no official signer: GitLab sends the configured secret token verbatim in X-Gitlab-Token (docs.gitlab.com, 'Webhooks', secret token); @gitbeaker has no webhook verifier" });

// The generic hmac scheme has no provider: node:crypto signs it.
{
  const secret = "generic-fixture-secret";
  const body = `{"id":"gen_1","type":"thing.happened"}`;
  push({ name: "hmac-generic", scheme: "hmac", sdk: "none", secret,
    hmac: { header: "X-Signature", algorithm: "sha256", encoding: "hex", prefix: "sha256=", timestamp_header: "X-Timestamp" },
    headers: { "X-Signature": "sha256=" + hmac("sha256", secret, `${T}.${body}`, "hex"), "X-Timestamp": String(T), "Content-Type": "application/json" }, body, now: T,
    source: "no provider: the generic scheme's {timestamp}.{body} HMAC-SHA256, made with node:crypto" });
}

// none verifies nothing.
push({ name: "none-unsigned", scheme: "none", sdk: "none", headers: { "Content-Type": "application/json" }, body: `{"id":"local_1","type":"local.test"}`,
  source: "no provider and no signature: the scheme for local use" });

// Twilio: the helper library signs (getExpectedTwilioSignature) and
// validates.
{
  const sdk = version("twilio");
  const token = "twilio-fixture-auth-token";
  const url = "https://relay.example.com/webhooks/twilio-sdk-form";
  const params = { AccountSid: "AC00000000000000000000000000000000", MessageSid: "SM11111111111111111111111111111111", MessageStatus: "delivered", From: "+15551234567", To: "+15557654321" };
  const body = new URLSearchParams(params).toString();
  const sig = twilio.getExpectedTwilioSignature(token, url, params);
  check(twilio.validateRequest(token, sig, url, params), "twilio");
  const headers = { "X-Twilio-Signature": sig, "I-Twilio-Idempotency-Token": "f0c1e7a2-0000-4000-8000-000000000001", "Content-Type": "application/x-www-form-urlencoded" };
  push({ name: "twilio-sdk-form", scheme: "twilio", sdk, secret: token, url, headers, body, source: "signed by getExpectedTwilioSignature; validateRequest accepted it" });
  check(!twilio.validateRequest(token, sig, url.replace("form", "forms"), params), "twilio-url");
  push({ name: "twilio-sdk-form-other-url", scheme: "twilio", sdk, secret: token, url: url.replace("form", "forms"), headers, body, expected_valid: false, source: "validateRequest refused it (another URL)" });

  const jbody = `{"MessageSid":"SM22222222222222222222222222222222","MessageStatus":"delivered"}`;
  const jurl = "https://relay.example.com/webhooks/twilio-sdk-json?bodySHA256=" + crypto.createHash("sha256").update(jbody).digest("hex");
  const jsig = twilio.getExpectedTwilioSignature(token, jurl, null);
  check(twilio.validateRequestWithBody(token, jsig, jurl, jbody), "twilio-json");
  push({ name: "twilio-sdk-json", scheme: "twilio", sdk, secret: token, url: jurl, headers: { "X-Twilio-Signature": jsig, "I-Twilio-Idempotency-Token": "f0c1e7a2-0000-4000-8000-000000000002", "Content-Type": "application/json" }, body: jbody,
    source: "signed by getExpectedTwilioSignature over the URL with bodySHA256; validateRequestWithBody accepted it" });
}

// Paddle: the Node SDK only verifies (paddle.webhooks.isSignatureValid,
// the check behind unmarshal, which also wants ts within 5 s); signed by Paddle's recipe, h1 = hex
// HMAC-SHA256 of "<ts>:<body>".
{
  const sdk = version("@paddle/paddle-node-sdk");
  const secret = "pdl_ntfset_01fixture_fixtureSecretKey";
  const body = `{"event_id":"evt_01hv8x2acma2gz7he9m8n1yjcr","event_type":"transaction.completed","occurred_at":"${new Date(T * 1000).toISOString()}","notification_id":"ntf_01hv8x2af5ebh2aq8wbxvn2ra1","data":{"id":"txn_01hv8wptq8987qeep44cyrewp9","status":"completed"}}`;
  const header = `ts=${T};h1=${hmac("sha256", secret, `${T}:${body}`, "hex")}`;
  const v = new Paddle("pdl_sdbx_apikey_01fixture_fixture").webhooks;
  check(await v.isSignatureValid(body, secret, header), "paddle");
  push({ name: "paddle-sdk", scheme: "paddle", sdk, secret, headers: { "Paddle-Signature": header, "Content-Type": "application/json" }, body, now: T,
    source: "signed by Paddle's documented recipe (the SDK has no signer); paddle.webhooks.isSignatureValid accepted it" });
  const forged = header.slice(0, -1) + (header.endsWith("0") ? "1" : "0");
  check(!(await v.isSignatureValid(body, secret, forged)), "paddle-forged");
  push({ name: "paddle-sdk-forged", scheme: "paddle", sdk, secret, headers: { "Paddle-Signature": forged, "Content-Type": "application/json" }, body, now: T, expected_valid: false, source: "paddle.webhooks.isSignatureValid refused it" });
}

// Zoom: @zoom/rivet only verifies (its receivers); signed by Zoom's recipe,
// v0=hex HMAC-SHA256 of "v0:<ts>:<body>". Rivet checks JSON.stringify of
// the parsed body, so the body is written compact.
{
  const sdk = version("@zoom/rivet");
  const secret = "zoom-fixture-secret-token";
  const body = JSON.stringify({ event: "meeting.started", event_ts: T * 1000 + 123, payload: { account_id: "AAAAAABBBB", object: { id: "85184316245", uuid: "4444AAAiAAAAAiAiAiiAii==", topic: "Fixture" } } });
  const sig = "v0=" + hmac("sha256", secret, `v0:${T}:${body}`, "hex");
  const receiver = new ZoomReceiver({ webhooksSecretToken: secret });
  receiver.init({ eventEmitter: undefined });
  const handle = receiver.start();
  const quiet = console.debug;
  console.debug = () => {};
  const status = async (s) => (await handle({ body, headers: { "x-zm-signature": s, "x-zm-request-timestamp": String(T) }, isBase64Encoded: false }, {})).statusCode;
  check((await status(sig)) === 200, "zoom");
  check((await status(flip(sig))) === 400, "zoom-forged");
  console.debug = quiet;
  push({ name: "zoom-sdk", scheme: "zoom", sdk, secret, headers: { "X-Zm-Signature": sig, "X-Zm-Request-Timestamp": String(T), "Content-Type": "application/json" }, body, now: T,
    source: "signed by Zoom's documented recipe (the SDK has no signer); the SDK's AwsLambdaReceiver accepted it" });
  push({ name: "zoom-sdk-forged", scheme: "zoom", sdk, secret, headers: { "X-Zm-Signature": flip(sig), "X-Zm-Request-Timestamp": String(T), "Content-Type": "application/json" }, body, now: T, expected_valid: false,
    source: "the SDK's AwsLambdaReceiver refused it" });
}

// Meta: no official npm library verifies webhooks; signed by Meta's recipe
// (X-Hub-Signature-256: sha256=hex HMAC-SHA256 of the body, app secret).
{
  const secret = "meta-fixture-app-secret";
  const body = `{"object":"whatsapp_business_account","entry":[{"id":"102290129340398","changes":[{"value":{"messaging_product":"whatsapp","metadata":{"display_phone_number":"15550783881","phone_number_id":"106540352242922"},"statuses":[{"id":"wamid.HBgLMTY1MDM4Nzk0MzkVAgARGBJDQjZCMzlEQUE4OTJBMTE4RTUA","status":"delivered","timestamp":"${T}","recipient_id":"16505551234"}]},"field":"messages"}]}]}`;
  push({ name: "meta-recipe", scheme: "meta", sdk: "none", secret, headers: { "X-Hub-Signature-256": "sha256=" + hmac("sha256", secret, body, "hex"), "Content-Type": "application/json" }, body,
    source: "no official signer or verifier on npm: signed by Meta's documented recipe (developers.facebook.com, Graph API Webhooks, 'Validating Payloads') with node:crypto" });
}

// Discord: discord-interactions only verifies (verifyKey); signed with an
// Ed25519 key from a fixed seed, as Discord signs.
{
  const sdk = version("discord-interactions");
  const seed = Buffer.alloc(32, 7);
  const priv = crypto.createPrivateKey({ key: Buffer.concat([Buffer.from("302e020100300506032b657004220420", "hex"), seed]), format: "der", type: "pkcs8" });
  const pub = crypto.createPublicKey(priv).export({ format: "der", type: "spki" }).subarray(12).toString("hex");
  for (const [name, body] of [
    ["discord-sdk-ping", '{"application_id":"123","id":"1055","token":"tok","type":1,"user":{"id":"53908232506183680"},"version":1}'],
    ["discord-sdk-command", '{"application_id":"123","id":"1056","token":"tok","type":2,"data":{"id":"771","name":"blep","type":1},"version":1}'],
  ]) {
    const ts = String(T);
    const sig = crypto.sign(null, Buffer.from(ts + body), priv).toString("hex");
    check(await discordVerifyKey(body, sig, ts, pub), name);
    push({ name, scheme: "discord", sdk, public_key: pub, headers: { "X-Signature-Ed25519": sig, "X-Signature-Timestamp": ts, "Content-Type": "application/json" }, body, now: T,
      source: "signed with Ed25519 as Discord signs (the SDK has no signer); verifyKey accepted it" });
    const forged = flip(sig);
    check(!(await discordVerifyKey(body, forged, ts, pub)), name + "-forged");
    push({ name: name + "-forged", scheme: "discord", sdk, public_key: pub, headers: { "X-Signature-Ed25519": forged, "X-Signature-Timestamp": ts, "Content-Type": "application/json" }, body, now: T, expected_valid: false,
      source: "verifyKey refused it" });
  }
}

// SendGrid: @sendgrid/eventwebhook only verifies; signed with ECDSA P-256
// over "<ts><body>" (SHA-256, DER signature, base64), as SendGrid signs,
// with a key from a fixed scalar.
{
  const sdk = version("@sendgrid/eventwebhook");
  const ecdh = crypto.createECDH("prime256v1");
  ecdh.setPrivateKey(Buffer.alloc(32, 9));
  const point = ecdh.getPublicKey();
  const b64u = (b) => b.toString("base64url");
  const priv = crypto.createPrivateKey({ key: { kty: "EC", crv: "P-256", d: b64u(ecdh.getPrivateKey()), x: b64u(point.subarray(1, 33)), y: b64u(point.subarray(33)) }, format: "jwk" });
  const pub = crypto.createPublicKey(priv).export({ format: "der", type: "spki" }).toString("base64");
  const body = `[{"email":"example@test.com","timestamp":${T},"smtp-id":"<14c5d75ce93.dfd.64b469@ismtpd-555>","event":"delivered","category":"cat facts","sg_event_id":"sg_fixture_event_1","sg_message_id":"14c5d75ce93.dfd.64b469.filter0001.16648.5515E0B88.0"}]\r\n`;
  const ts = String(T);
  const sig = crypto.sign("sha256", Buffer.from(ts + body), priv).toString("base64");
  const ew = new EventWebhook();
  const key = ew.convertPublicKeyToECDSA(pub);
  check(ew.verifySignature(key, body, sig, ts), "sendgrid");
  const headers = { "X-Twilio-Email-Event-Webhook-Signature": sig, "X-Twilio-Email-Event-Webhook-Timestamp": ts, "Content-Type": "application/json" };
  push({ name: "sendgrid-sdk", scheme: "sendgrid", sdk, public_key: pub, headers, body, now: T,
    source: "signed with ECDSA P-256 as SendGrid signs (the SDK has no signer); EventWebhook.verifySignature accepted it" });
  const other = body.replace("delivered", "processed");
  check(!ew.verifySignature(key, other, sig, ts), "sendgrid-forged");
  push({ name: "sendgrid-sdk-other-body", scheme: "sendgrid", sdk, public_key: pub, headers, body: other, now: T, expected_valid: false, source: "EventWebhook.verifySignature refused it" });
}

// Mailgun: mailgun.js has no webhook verifier; the published example of
// Mailgun's docs (token and timestamp from 'Securing Webhooks', signed by
// its recipe), as in testdata/signature-vectors.json.
{
  const key = "mailgun-webhook-signing-key";
  const token = "e0b5477167110d68991efc6b9f89f0a11066af27834600e123", ts = "1770920772";
  const body = `{"signature":{"token":"${token}","timestamp":"${ts}","signature":"${hmac("sha256", key, ts + token, "hex")}"},"event-data":{"id":"CPgfbmQMTCKtHW6uIWtuVe","event":"delivered","timestamp":1770920772.123}}`;
  push({ name: "mailgun-docs", scheme: "mailgun", sdk: "none", secret: key, headers: { "Content-Type": "application/json" }, body, now: 1770920780,
    source: "no official signer or verifier on npm (mailgun.js has none): the token and timestamp of documentation.mailgun.com 'Securing Webhooks', hex HMAC-SHA256(timestamp+token) by its recipe" });
}

// Square: the SDK only verifies (WebhooksHelper.verifySignature); signed by
// Square's recipe, base64 HMAC-SHA256 of the notification URL + body.
{
  const sdk = version("square");
  const key = "square-fixture-signature-key", url = "https://relay.example.com/webhooks/square-sdk";
  const body = '{"merchant_id":"6SSW7HV8K2ST5","type":"payment.updated","event_id":"13b867cf-db3d-4b1c-90b6-2f32a9d78124","created_at":"2023-11-14T22:13:20Z","data":{"type":"payment","id":"KkAkhdMsgzn59SM8A89WgKwekxLZY","object":{}}}';
  const sig = hmac("sha256", key, url + body, "base64");
  const verify = (u) => SquareWebhooks.verifySignature({ requestBody: body, signatureHeader: sig, signatureKey: key, notificationUrl: u });
  check(await verify(url), "square");
  const headers = { "X-Square-Hmacsha256-Signature": sig, "Content-Type": "application/json" };
  push({ name: "square-sdk", scheme: "square", sdk, secret: key, url, headers, body, source: "signed by Square's documented recipe (the SDK has no signer); WebhooksHelper.verifySignature accepted it" });
  const other = url.replace("square-sdk", "square-sdk-other");
  check(!(await verify(other)), "square-url");
  push({ name: "square-sdk-other-url", scheme: "square", sdk, secret: key, url: other, headers, body, expected_valid: false, source: "WebhooksHelper.verifySignature refused it (another URL)" });
}

// Linear: @linear/sdk only verifies (LinearWebhookClient.verify, which also
// wants webhookTimestamp within 60 s); signed by Linear's recipe, hex
// HMAC-SHA256 of the body.
{
  const sdk = version("@linear/sdk");
  const secret = "lin_wh_fixture_secret";
  const body = `{"action":"create","type":"Issue","createdAt":"${new Date(T * 1000).toISOString()}","data":{"id":"2174add1-f7c8-44e3-bbf3-2d60b5ea8bc9","title":"Fixture"},"url":"https://linear.app/x/issue/X-1","organizationId":"org_1","webhookTimestamp":${T * 1000},"webhookId":"wh_fixture"}`;
  const sig = hmac("sha256", secret, body, "hex");
  const client = new LinearWebhookClient(secret);
  check(!throws(() => client.verify(Buffer.from(body), sig)), "linear");
  const headers = { "Linear-Signature": sig, "Linear-Delivery": "234d1a4e-b617-4388-90fe-adc3633d6b72", "Linear-Event": "Issue", "Content-Type": "application/json" };
  push({ name: "linear-sdk", scheme: "linear", sdk, secret, headers, body, now: T, source: "signed by Linear's documented recipe (the SDK has no signer); LinearWebhookClient.verify accepted it" });
  check(throws(() => client.verify(Buffer.from(body), flip(sig))), "linear-forged");
  push({ name: "linear-sdk-forged", scheme: "linear", sdk, secret, headers: { ...headers, "Linear-Signature": flip(sig) }, body, now: T, expected_valid: false, source: "LinearWebhookClient.verify refused it" });
}

// Intercom: intercom-client has no webhook verifier; the published example
// notification of Intercom's docs, signed by its recipe (sha1= hex
// HMAC-SHA1 of the body, client secret), as in signature-vectors.json.
{
  const secret = "intercom-client-secret";
  const body = `{"type":"notification_event","id":"notif_78c122d0-23ba-11e4-9464-79b01267cc2e","topic":"user.created","app_id":"a86dr8yl","data":{"type":"notification_event_data","item":{"type":"user","id":"530370b477ad7120001d"}}}`;
  push({ name: "intercom-docs", scheme: "intercom", sdk: "none", secret, headers: { "X-Hub-Signature": "sha1=" + hmac("sha1", secret, body, "hex"), "Content-Type": "application/json" }, body,
    source: "no official signer or verifier on npm (intercom-client has none): Intercom's documented example notification, signed by its 'Signed Notifications' recipe" });
}

// Microsoft Graph: no signature; clientState in each notification is the
// shared value (@microsoft/microsoft-graph-client has no verifier).
{
  const state = "graph-fixture-client-state";
  const body = `{"value":[{"subscriptionId":"7f105c7d-2dc5-4530-97cd-4e7ae6534c07","subscriptionExpirationDateTime":"2026-12-31T18:23:45.9356913Z","changeType":"created","resource":"Users/7c9b3d14/Messages/AAMkAGUwNjQ4ZjIxAAA=","resourceData":{"@odata.type":"#Microsoft.Graph.Message","id":"AAMkAGUwNjQ4ZjIxAAA="},"clientState":"${state}","tenantId":"84bd8158-6d4d-4958-8b9f-9d6445542f95"}]}`;
  push({ name: "msgraph-docs", scheme: "msgraph", sdk: "none", secret: state, headers: { "Content-Type": "application/json" }, body,
    source: "no signature and no official verifier on npm: the change-notification shape of learn.microsoft.com 'Receive change notifications through webhooks', clientState compared as Graph documents" });
}

process.stdout.write(JSON.stringify(out, null, 1) + "\n");
