// One-off generator of internal/signature/testdata/provider-fixtures.json.
// Each genuine request is checked by the provider's own library before it
// is written; CI only reads the JSON.
import crypto from "node:crypto";
import { createRequire } from "node:module";
const require = createRequire(import.meta.url);
const { verifyKey } = require("discord-interactions");
const { WebhooksHelper } = require("square");
const { LinearWebhookClient } = await import("@linear/sdk/webhooks");
const versions = {
  discord: "discord-interactions " + require("./node_modules/discord-interactions/package.json").version,
  square: "square " + JSON.parse(require("fs").readFileSync("./node_modules/square/package.json")).version,
  linear: "@linear/sdk " + JSON.parse(require("fs").readFileSync("./node_modules/@linear/sdk/package.json")).version,
};
const out = [];
const check = (ok, name) => { if (!ok) throw new Error(name + ": library disagrees"); };

// Discord: an Ed25519 key from a fixed seed.
const seed = Buffer.alloc(32, 7);
const priv = crypto.createPrivateKey({ key: Buffer.concat([Buffer.from("302e020100300506032b657004220420", "hex"), seed]), format: "der", type: "pkcs8" });
const pubHex = crypto.createPublicKey(priv).export({ format: "der", type: "spki" }).subarray(12).toString("hex");
for (const [name, body] of [
  ["discord-ping", '{"application_id":"123","id":"1055","token":"tok","type":1,"user":{"id":"53908232506183680"},"version":1}'],
  ["discord-command", '{"application_id":"123","id":"1056","token":"tok","type":2,"data":{"id":"771","name":"blep","type":1},"version":1}'],
]) {
  const ts = "1700000000";
  const sig = crypto.sign(null, Buffer.from(ts + body), priv).toString("hex");
  check(await verifyKey(body, sig, ts, pubHex), name);
  out.push({ name, scheme: "discord", public_key: pubHex, headers: { "X-Signature-Ed25519": sig, "X-Signature-Timestamp": ts }, body, now: 1700000000, expected_valid: true, source: versions.discord + " verifyKey accepted it" });
  const forged = sig.slice(0, -2) + (sig.endsWith("00") ? "01" : "00");
  check(!(await verifyKey(body, forged, ts, pubHex)), name + "-forged");
  out.push({ name: name + "-forged", scheme: "discord", public_key: pubHex, headers: { "X-Signature-Ed25519": forged, "X-Signature-Timestamp": ts }, body, now: 1700000000, expected_valid: false, source: versions.discord + " verifyKey refused it" });
}

// Square: HMAC-SHA256 of notification URL + body, base64.
{
  const key = "square-signature-key-0123", url = "https://relay.example.com/webhooks/square";
  const body = '{"merchant_id":"6SSW7HV8K2ST5","type":"payment.updated","event_id":"13b867cf-db3d-4b1c-90b6-2f32a9d78124","created_at":"2023-11-14T22:13:20Z","data":{"type":"payment","id":"KkAkhdMsgzn59SM8A89WgKwekxLZY","object":{}}}';
  const sig = crypto.createHmac("sha256", key).update(url + body).digest("base64");
  check(await WebhooksHelper.verifySignature({ requestBody: body, signatureHeader: sig, signatureKey: key, notificationUrl: url }), "square");
  out.push({ name: "square-valid", scheme: "square", secret: key, url, headers: { "X-Square-Hmacsha256-Signature": sig }, body, expected_valid: true, source: versions.square + " WebhooksHelper.verifySignature accepted it" });
  const other = url.replace("square", "squares");
  check(!(await WebhooksHelper.verifySignature({ requestBody: body, signatureHeader: sig, signatureKey: key, notificationUrl: other })), "square-url");
  out.push({ name: "square-other-url", scheme: "square", secret: key, url: other, headers: { "X-Square-Hmacsha256-Signature": sig }, body, expected_valid: false, source: versions.square + " WebhooksHelper.verifySignature refused it" });
}

// Linear: hex HMAC-SHA256 of the body; webhookTimestamp (ms) in the body.
{
  const secret = "lin_wh_fixture_secret";
  const now = Date.now();
  const body = `{"action":"create","type":"Issue","createdAt":"2023-11-14T22:13:20.000Z","data":{"id":"a1b2"},"url":"https://linear.app/x","webhookTimestamp":${now},"webhookId":"wh_1"}`;
  const sig = crypto.createHmac("sha256", secret).update(body).digest("hex");
  check(new LinearWebhookClient(secret).verify(Buffer.from(body), sig), "linear");
  out.push({ name: "linear-sdk-valid", scheme: "linear", secret, headers: { "Linear-Signature": sig, "Linear-Delivery": "234d1a4e-b617-4388-90fe-adc3633d6b72", "Linear-Event": "Issue" }, body, now: Math.floor(now / 1000), expected_valid: true, source: versions.linear + " LinearWebhookClient.verify accepted it" });
}
process.stdout.write(JSON.stringify(out, null, 1) + "\n");
