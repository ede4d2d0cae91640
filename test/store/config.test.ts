import { test } from "uvu";
import * as assert from "uvu/assert";
import { describeStore, resolveStoreConfig } from "../../runtime/store/index.js";

const SECRET = "s3cr3t-p@ss";

test("nothing set: the in-memory store in namespace default", () => {
  assert.equal(resolveStoreConfig({}), { kind: "memory", namespace: "default" });
  assert.equal(resolveStoreConfig({ REDIS_URL: "", MANIFOLD_REDIS_HOST: "" }), { kind: "memory", namespace: "default" }, "empty counts as unset");
});

test("REDIS_URL: host, port, db, credentials, rediss → TLS", () => {
  assert.equal(resolveStoreConfig({ REDIS_URL: "redis://cache.internal" }), {
    kind: "redis",
    namespace: "default",
    endpoint: { host: "cache.internal", port: 6379 },
    db: 0,
    tls: false,
  });
  assert.equal(resolveStoreConfig({ REDIS_URL: `rediss://app:${encodeURIComponent(SECRET)}@10.0.0.5:6380/3`, MANIFOLD_REDIS_NAMESPACE: "prod" }), {
    kind: "redis",
    namespace: "prod",
    endpoint: { host: "10.0.0.5", port: 6380 },
    db: 3,
    tls: true,
    username: "app",
    password: SECRET,
  });
  assert.equal(resolveStoreConfig({ REDIS_URL: "redis://[::1]:7000", MANIFOLD_REDIS_PASSWORD: SECRET }), {
    kind: "redis",
    namespace: "default",
    endpoint: { host: "::1", port: 7000 },
    db: 0,
    tls: false,
    password: SECRET,
  });
});

test("MANIFOLD_REDIS_HOST and friends", () => {
  assert.equal(
    resolveStoreConfig({
      MANIFOLD_REDIS_HOST: "redis",
      MANIFOLD_REDIS_PORT: "6390",
      MANIFOLD_REDIS_DB: "2",
      MANIFOLD_REDIS_PASSWORD: SECRET,
      MANIFOLD_REDIS_TLS: "true",
    }),
    { kind: "redis", namespace: "default", endpoint: { host: "redis", port: 6390 }, db: 2, tls: true, password: SECRET },
  );
});

test("MANIFOLD_REDIS_CLUSTER_NODES selects a cluster", () => {
  assert.equal(resolveStoreConfig({ MANIFOLD_REDIS_CLUSTER_NODES: "10.0.0.1:7000, 10.0.0.2:7001,[fe80::1]:7002", MANIFOLD_REDIS_PASSWORD: SECRET }), {
    kind: "cluster",
    namespace: "default",
    tls: false,
    password: SECRET,
    nodes: [
      { host: "10.0.0.1", port: 7000 },
      { host: "10.0.0.2", port: 7001 },
      { host: "fe80::1", port: 7002 },
    ],
  });
});

test("bad or ambiguous settings fail naming the variable, and never quote a password", () => {
  const cases: [Record<string, string>, RegExp][] = [
    [{ MANIFOLD_REDIS_PORT: "6380" }, /MANIFOLD_REDIS_PORT set but MANIFOLD_REDIS_HOST is not/],
    [{ MANIFOLD_REDIS_PASSWORD: SECRET }, /MANIFOLD_REDIS_PASSWORD set but MANIFOLD_REDIS_HOST is not/],
    [{ MANIFOLD_REDIS_HOST: "h", MANIFOLD_REDIS_PORT: "63a" }, /MANIFOLD_REDIS_PORT must be an integer from 1 to 65535/],
    [{ MANIFOLD_REDIS_HOST: "h", MANIFOLD_REDIS_DB: "-1" }, /MANIFOLD_REDIS_DB must be an integer/],
    [{ MANIFOLD_REDIS_HOST: "h", MANIFOLD_REDIS_TLS: "yes" }, /MANIFOLD_REDIS_TLS must be true or false/],
    [{ REDIS_URL: "http://h" }, /REDIS_URL must start with redis:\/\/ or rediss:\/\//],
    [{ REDIS_URL: `redis://u:${SECRET}@h:99999` }, /REDIS_URL is not a valid URL/],
    [{ REDIS_URL: "redis://h/x" }, /database number in REDIS_URL/],
    [{ REDIS_URL: "redis://h", MANIFOLD_REDIS_HOST: "h" }, /either REDIS_URL or MANIFOLD_REDIS_HOST, not both/],
    [{ REDIS_URL: `redis://:${SECRET}@h`, MANIFOLD_REDIS_PASSWORD: "other" }, /keep one/],
    [{ MANIFOLD_REDIS_CLUSTER_NODES: "a:1", REDIS_URL: "redis://h" }, /either MANIFOLD_REDIS_CLUSTER_NODES or REDIS_URL/],
    [{ MANIFOLD_REDIS_CLUSTER_NODES: "a:1", MANIFOLD_REDIS_DB: "1" }, /MANIFOLD_REDIS_DB cannot be combined with MANIFOLD_REDIS_CLUSTER_NODES/],
    [{ MANIFOLD_REDIS_CLUSTER_NODES: "a" }, /comma-separated list of host:port/],
    [{ MANIFOLD_REDIS_CLUSTER_NODES: " , " }, /lists no node/],
    [{ MANIFOLD_REDIS_NAMESPACE: "a{b}" }, /MANIFOLD_REDIS_NAMESPACE must be/],
    [{ MANIFOLD_REDIS_NAMESPACE: "a:b" }, /MANIFOLD_REDIS_NAMESPACE must be/],
  ];
  for (const [env, pattern] of cases) {
    try {
      resolveStoreConfig(env);
      assert.unreachable(`accepted ${JSON.stringify(env)}`);
    } catch (error) {
      assert.instance(error, RangeError);
      assert.match((error as Error).message, pattern);
      assert.not.ok((error as Error).message.includes(SECRET), "no password in the message");
    }
  }
});

test("the description shows where, never the password", () => {
  assert.is(describeStore(resolveStoreConfig({})), "the embedded in-memory store");
  assert.is(describeStore(resolveStoreConfig({ REDIS_URL: `redis://app:${SECRET}@h:6380/2` })), "redis://app:***@h:6380/2");
  assert.is(
    describeStore(resolveStoreConfig({ MANIFOLD_REDIS_HOST: "h", MANIFOLD_REDIS_PASSWORD: SECRET, MANIFOLD_REDIS_TLS: "true" })),
    "rediss://:***@h:6379/0",
  );
  assert.is(describeStore(resolveStoreConfig({ MANIFOLD_REDIS_CLUSTER_NODES: "a:1,b:2" })), "Redis Cluster redis://a:1,redis://b:2");
});

test.run();
