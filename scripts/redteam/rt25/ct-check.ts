import { format } from "/tmp/rt25/ct/src/index";
const f = (v: string, type = "text/html") => { try { return format({ type, parameters: { foo: v } }); } catch (e: any) { return "THROW " + e.message.replace(/[\u0000-\u001f]/g, (c: string) => "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0")); } };
console.log(JSON.stringify({
  listedTab: f("bar\tbaz"), listedVT: f("bar\u000bbaz"),
  otherTab: f("a\tb"), otherVT: f("x\u000by"), tabOtherType: f("bar\tbaz", "image/png"), vtOtherType: f("bar\u000bbaz", "application/json"),
  nul: f("bar\u0000"), tabWithSpace: f("a b\tc"), leadingTab: f("\tx"), trailingVT: f("x\u000b"), digitsVT: f("1\u000b2"),
}));
