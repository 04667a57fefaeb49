// Decrypts and verifies a Web Push request plandash sent, with implementations that are not
// plandash's: http_ece (aes128gcm, RFC 8188/8291) and jws (ES256, as web-push signs VAPID).
// Reads JSON on stdin: {body, authorization, privateKey, publicKey, auth} (body base64, keys
// base64url); prints {payload, claims, k} or exits non-zero saying what failed.
const path = require("path");
const mods = process.env.PLANDASH_NPM;
const ece = require(path.join(mods, "http_ece"));
const jws = require(path.join(mods, "jws"));
const webpush = require(path.join(mods, "web-push"));
const crypto = require("crypto");

let input = "";
process.stdin.on("data", (c) => (input += c));
process.stdin.on("end", () => {
  const req = JSON.parse(input);
  const ecdh = crypto.createECDH("prime256v1");
  ecdh.setPrivateKey(Buffer.from(req.privateKey, "base64url"));
  const payload = ece.decrypt(Buffer.from(req.body, "base64"), {
    version: "aes128gcm",
    privateKey: ecdh,
    authSecret: req.auth,
  });
  const m = /^vapid t=([^,\s]+),\s*k=([A-Za-z0-9_-]+)$/.exec(req.authorization);
  if (!m) throw new Error("Authorization is not 'vapid t=…, k=…': " + req.authorization);
  const [, token, k] = m;
  const raw = Buffer.from(k, "base64url");
  const key = crypto.createPublicKey({
    key: { kty: "EC", crv: "P-256", x: raw.subarray(1, 33).toString("base64url"), y: raw.subarray(33).toString("base64url") },
    format: "jwk",
  });
  const pem = key.export({ type: "spki", format: "pem" });
  if (!jws.verify(token, "ES256", pem)) throw new Error("the VAPID JWT's ES256 signature does not verify with k");
  const decoded = jws.decode(token);
  // web-push's own check of the key's shape: 65 bytes, base64url.
  webpush.setVapidDetails("mailto:check@example.invalid", k, Buffer.alloc(32, 1).toString("base64url"));
  process.stdout.write(JSON.stringify({ payload: payload.toString("utf8"), header: decoded.header, claims: typeof decoded.payload === "string" ? JSON.parse(decoded.payload) : decoded.payload, k }));
});
