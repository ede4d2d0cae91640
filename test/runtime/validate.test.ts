import { test } from "uvu";
import * as assert from "uvu/assert";
import { compileInputValidator, createAjv } from "../../runtime/component/validate.js";
import type { CapabilitySpec } from "../../runtime/spec/types.js";

const capability: CapabilitySpec = {
  name: "get_weather",
  key: "getWeather",
  description: "Weather",
  type: "tool",
  internal: false,
  endpoint: "/api/capabilities/get_weather",
  input: {
    required: [
      { name: "lat", type: "number" },
      { name: "lon", type: "number" },
    ],
    optional: [
      { name: "units", type: "string", enum: ["metric", "imperial"] },
      { name: "days", type: "integer" },
      { name: "tags", type: "array", items: { type: "string" } },
      { name: "place", type: "object", fields: { required: [{ name: "city", type: "string" }], optional: [] } },
      { name: "a/b~c", type: "boolean" },
    ],
  },
};

const validate = compileInputValidator(createAjv(), capability);
const pointers = (value: unknown) => validate(value)?.map((d) => d.pointer) ?? [];

test("a valid input has no details", () => {
  assert.is(validate({ lat: 1, lon: 2 }), undefined);
  assert.is(validate({ lat: 1, lon: 2, units: "metric", days: 3, tags: ["x"], place: { city: "Oslo" }, "a/b~c": true }), undefined);
});

test("a wrong type points at the value", () => {
  assert.equal(validate({ lat: "north", lon: 2 }), [{ pointer: "/lat", message: "must be number" }]);
  assert.equal(pointers({ lat: 1, lon: 2, days: 1.5 }), ["/days"]);
});

test("a missing required property points at the property, not its parent", () => {
  assert.equal(validate({ lat: 1 }), [{ pointer: "/lon", message: "is required" }]);
  assert.equal(pointers({}), ["/lat", "/lon"]);
  assert.equal(pointers({ lat: 1, lon: 2, place: {} }), ["/place/city"]);
});

test("an unknown property points at itself", () => {
  assert.equal(validate({ lat: 1, lon: 2, colour: "red" }), [{ pointer: "/colour", message: "is not an allowed property" }]);
});

test("enum, array items, nesting; pointer tokens are escaped per RFC 6901", () => {
  assert.equal(validate({ lat: 1, lon: 2, units: "kelvin" }), [{ pointer: "/units", message: 'must be one of "metric", "imperial"' }]);
  assert.equal(pointers({ lat: 1, lon: 2, tags: ["ok", 7] }), ["/tags/1"]);
  assert.equal(pointers({ lat: 1, lon: 2, place: { city: 1 } }), ["/place/city"]);
  assert.equal(pointers({ lat: 1, lon: 2, "a/b~c": "yes" }), ["/a~1b~0c"]);
  assert.equal(pointers({ lat: 1, lon: 2, "x/y": 1 }), ["/x~1y"]);
});

test("all violations are reported, one detail each", () => {
  assert.equal(pointers({ lat: "n", extra: 1, units: "k" }).sort(), ["/extra", "/lat", "/lon", "/units"]);
});

test("a capability without an input summary takes any object", () => {
  const { input: _input, ...rest } = capability;
  const free = compileInputValidator(createAjv(), rest);
  assert.is(free({}), undefined);
  assert.is(free({ anything: [1, { deep: true }] }), undefined);
});

test.run();
