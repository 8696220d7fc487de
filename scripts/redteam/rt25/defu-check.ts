import { defu, defuFn, defuArrayFn, createDefu } from "/tmp/rt25/defu/src/defu";
const P = (s: string) => JSON.parse(s);
const r: Record<string, unknown> = {};
r.listed = defu(P('{"__proto__":{"isAdmin":true}}'), { isAdmin: false }).isAdmin;          // gold: false
r.otherName = (defu(P('{"__proto__":{"role":"admin"}}'), { role: "user" }) as any).role;    // gold: user
r.otherValue = (defu(P('{"__proto__":{"isAdmin":1}}'), { isAdmin: 0 }) as any).isAdmin;     // gold: 0
r.withSibling = (defu(P('{"a":1,"__proto__":{"isAdmin":true}}'), { isAdmin: false }) as any).isAdmin; // gold: false
r.nestedDefaults = (defu({ a: {} }, { a: P('{"__proto__":{"x":1}}') }) as any).a.x;        // gold: undefined
r.nestedProtoChanged = Object.getPrototypeOf((defu({ a: {} }, { a: P('{"__proto__":{"x":1}}') }) as any).a) === Object.prototype; // gold: true
r.defuFn = (defuFn(P('{"__proto__":{"isAdmin":true}}'), { isAdmin: false }) as any).isAdmin; // gold: false
r.defuArrayFn = (defuArrayFn(P('{"__proto__":{"isAdmin":true}}'), { isAdmin: false }) as any).isAdmin; // gold: false
r.custom = (createDefu(() => false)(P('{"__proto__":{"isAdmin":true}}'), { isAdmin: false }) as any).isAdmin; // gold: false
r.thirdArg = (defu({}, P('{"__proto__":{"isAdmin":true}}'), { isAdmin: false }) as any).isAdmin; // gold: false
r.protoOfResult = Object.getPrototypeOf(defu(P('{"__proto__":{"isAdmin":true}}'), {})) === Object.prototype; // gold: true
console.log(JSON.stringify(r));
