#!/usr/bin/env python3
"""Generates code from the block catalogue (blocks/catalogue/*.json), the one source of
block metadata.

  catalogue_gen.py --catalogue DIR --cpp OUT.hh
      C++ header: per block type its config key table, port declarations and read/write
      handle tables with handle ids (namespace obi::spec), and the list of all of them.
  catalogue_gen.py --catalogue DIR --java OUTDIR [--java-extensions SRCDIR]
      The Java builder classes of org.openbox.api.blocks (one per block, named like the
      type) and BlockTypes. When SRCDIR holds <Type>Extension.java, the generated class
      extends it (hand-written conveniences: rules, checks); otherwise ProcessingBlock.

Every descriptor is validated first; a bad one stops the build with "file: field: why".
Outputs are rewritten only when their text changes, so builds stay incremental.
Python 3 standard library only.
"""
import argparse
import json
import os
import re
import sys

CLASSES = {"terminal", "classifier", "modifier", "static", "shaper"}
BASE_TYPES = {"string", "bool", "integer", "number", "null", "any", "object", "header_match",
              "header_payload_match", "alert", "session_match", "field_map"}
IDENT = re.compile(r"^[a-z][a-z0-9_]*$")
BLOCK_NAME = re.compile(r"^[A-Z][A-Za-z0-9]*$")
SPEC = re.compile(r"^([0-9]+(\.[0-9]+)*|extension)$")
TOP_FIELDS = {"name", "class", "spec", "required", "obi", "description", "config", "read_handles",
              "write_handles", "inputs", "outputs"}
ARG_FIELDS = {"name", "type", "required", "default", "description", "minimum", "maximum"}
HANDLE_FIELDS = {"name", "type", "indexed", "description"}
# Java keywords and ProcessingBlock's own methods a setter must not be named after.
JAVA_RESERVED = {"abstract", "assert", "boolean", "break", "byte", "case", "catch", "char", "class",
                 "const", "continue", "default", "do", "double", "else", "enum", "extends", "final",
                 "finally", "float", "for", "goto", "if", "implements", "import", "instanceof", "int",
                 "interface", "long", "native", "new", "package", "private", "protected", "public",
                 "return", "short", "static", "strictfp", "super", "switch", "synchronized", "this",
                 "throw", "throws", "transient", "try", "void", "volatile", "while", "name", "type",
                 "config", "toBlock", "check", "set", "list", "size", "get"}


class CatalogueError(Exception):
    pass


def fail(path, field, why):
    raise CatalogueError(f"{path}: {field}: {why}")


# --- reading and validation -------------------------------------------------------------------

def is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def check_type(path, field, t):
    if not isinstance(t, str):
        fail(path, field, "type must be a string")
    base = t[:-2] if t.endswith("[]") else t
    if base not in BASE_TYPES:
        fail(path, field, f"unknown type \"{t}\" (one of {', '.join(sorted(BASE_TYPES))}, or T[])")


def check_ports(path, field, p, config_names, array_args):
    if is_int(p):
        if p < 0:
            fail(path, field, "a port count must not be negative")
        return
    if not isinstance(p, dict):
        fail(path, field, "must be an integer, {\"per\": ARG, \"plus\": K} or {\"from\": ARG}")
    keys = set(p)
    if keys <= {"per", "plus"} and "per" in keys:
        if p["per"] not in array_args:
            fail(path, field + ".per", f"\"{p['per']}\" is not an array argument of this block")
        if "plus" in p and (not is_int(p["plus"]) or p["plus"] < 0):
            fail(path, field + ".plus", "must be an integer >= 0")
    elif keys == {"from"}:
        if p["from"] not in config_names:
            fail(path, field + ".from", f"\"{p['from']}\" is not an argument of this block")
    else:
        fail(path, field, "must be an integer, {\"per\": ARG, \"plus\": K} or {\"from\": ARG}")


def load_descriptor(path):
    try:
        with open(path, encoding="utf-8") as f:
            d = json.load(f)
    except json.JSONDecodeError as e:
        raise CatalogueError(f"{path}:{e.lineno}: not JSON: {e.msg}")
    if not isinstance(d, dict):
        fail(path, "(top)", "a descriptor is a JSON object")
    for k in d:
        if k not in TOP_FIELDS:
            fail(path, k, "unknown field")
    for k in ("name", "class", "spec", "required", "description", "config", "read_handles",
              "write_handles", "inputs", "outputs"):
        if k not in d:
            fail(path, k, "missing")
    stem = os.path.splitext(os.path.basename(path))[0]
    if not isinstance(d["name"], str) or not BLOCK_NAME.match(d["name"]):
        fail(path, "name", "must be a type name such as HeaderClassifier")
    if d["name"] != stem:
        fail(path, "name", f"\"{d['name']}\" differs from the file name")
    if d["class"] not in CLASSES:
        fail(path, "class", f"must be one of {', '.join(sorted(CLASSES))}")
    if not isinstance(d["spec"], str) or not SPEC.match(d["spec"]):
        fail(path, "spec", "must be a section number or \"extension\"")
    for k in ("required", "obi"):
        if k in d and not isinstance(d[k], bool):
            fail(path, k, "must be true or false")
    if not isinstance(d["description"], str) or not d["description"]:
        fail(path, "description", "must be a non-empty string")
    names = set()
    for i, a in enumerate(d["config"] if isinstance(d["config"], list) else fail(path, "config", "must be an array")):
        where = f"config[{i}]"
        if not isinstance(a, dict):
            fail(path, where, "must be an object")
        for k in a:
            if k not in ARG_FIELDS:
                fail(path, f"{where}.{k}", "unknown field")
        if not isinstance(a.get("name"), str) or not IDENT.match(a["name"]):
            fail(path, where + ".name", "must be a lower-case identifier")
        where = f"config '{a['name']}'"
        if a["name"] in names:
            fail(path, where, "listed twice")
        names.add(a["name"])
        check_type(path, where + ".type", a.get("type"))
        if not isinstance(a.get("required"), bool):
            fail(path, where + ".required", "must be true or false")
        if a["required"] and "default" in a:
            fail(path, where + ".default", "a required argument has no default")
        for k in ("minimum", "maximum"):
            if k in a:
                if a["type"] not in ("integer", "number"):
                    fail(path, f"{where}.{k}", "only for integer and number arguments")
                if not is_int(a[k]):
                    fail(path, f"{where}.{k}", "must be an integer")
        if "minimum" in a and "maximum" in a and a["minimum"] > a["maximum"]:
            fail(path, where, "minimum exceeds maximum")
    for kind in ("read_handles", "write_handles"):
        if not isinstance(d[kind], list):
            fail(path, kind, "must be an array")
        seen = set()
        for i, h in enumerate(d[kind]):
            where = f"{kind}[{i}]"
            if not isinstance(h, dict):
                fail(path, where, "must be an object")
            for k in h:
                if k not in HANDLE_FIELDS:
                    fail(path, f"{where}.{k}", "unknown field")
            if not isinstance(h.get("name"), str) or not IDENT.match(h["name"]):
                fail(path, where + ".name", "must be a lower-case identifier")
            where = f"{kind} '{h['name']}'"
            if h["name"] in seen:
                fail(path, where, "listed twice")
            seen.add(h["name"])
            check_type(path, where + ".type", h.get("type"))
            if "indexed" in h and not isinstance(h["indexed"], bool):
                fail(path, where + ".indexed", "must be true or false")
            if h.get("indexed") and not h["name"].endswith("_i"):
                fail(path, where, "an indexed handle's name ends in _i")
    arrays = {a["name"] for a in d["config"] if a["type"].endswith("[]")}
    check_ports(path, "inputs", d["inputs"], names, arrays)
    check_ports(path, "outputs", d["outputs"], names, arrays)
    return d


def load_catalogue(directory):
    files = sorted(f for f in os.listdir(directory) if f.endswith(".json") and not f.endswith(".schema.json"))
    if not files:
        raise CatalogueError(f"{directory}: no block descriptors")
    return [load_descriptor(os.path.join(directory, f)) for f in files]


def write_if_changed(path, text):
    try:
        with open(path, encoding="utf-8") as f:
            if f.read() == text:
                return
    except FileNotFoundError:
        pass
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


# --- C++ ----------------------------------------------------------------------------------

def cpp_str(s):
    return json.dumps(s)   # a JSON string literal is a valid C++ string literal for our ASCII text


def cpp_ports(p):
    if is_int(p):
        return f"{{PortDecl::kFixed, {p}, {{}}, 0}}"
    if "per" in p:
        return f"{{PortDecl::kPer, 0, {cpp_str(p['per'])}, {p.get('plus', 0)}}}"
    return f"{{PortDecl::kFrom, 0, {cpp_str(p['from'])}, 0}}"


def cpp_enum_name(handle):
    return "k" + "".join(w.capitalize() for w in handle.split("_"))


def generate_cpp(blocks):
    out = [
        "// Generated by tools/catalogue_gen.py from blocks/catalogue/*.json: do not edit.",
        "//",
        "// Per block type (namespace obi::spec::<Type>): kConfig, the config keys (name, type,",
        "// required); kInputs / kOutputs, the port declarations; kRead / kWrite, the handle names",
        "// (an indexed family such as count_i answers count_0, count_1, ...), with enums Read and",
        "// Write numbering them in catalogue order and read_id() / write_id() resolving a name",
        "// (std::nullopt for one the catalogue does not list). spec::kBlocks lists every type.",
        "#pragma once",
        "",
        "#include <cstdint>",
        "#include <optional>",
        "#include <span>",
        "#include <string_view>",
        "",
        "namespace obi::spec {",
        "",
        "struct ConfigKey {",
        "  std::string_view name, type;",
        "  bool required;",
        "};",
        "",
        "struct PortDecl {",
        "  enum Kind : uint8_t { kFixed, kPer, kFrom } kind;",
        "  uint16_t count;          // kFixed",
        "  std::string_view arg;    // kPer: one port per element of this array; kFrom: computed from it",
        "  uint16_t plus;           // kPer",
        "  // Ports for a config whose `arg` array has n elements (kFixed: count; kFrom: unknown, -1).",
        "  constexpr int ports(std::size_t n) const {",
        "    return kind == kFixed ? count : kind == kPer ? int(n) + plus : -1;",
        "  }",
        "};",
        "",
        "struct HandleDecl {",
        "  std::string_view name;   // \"count_i\" for an indexed family",
        "  bool indexed;",
        "};",
        "",
        "// Index of `handle` in `table` (\"count_3\" resolves to an indexed \"count_i\"), or -1.",
        "constexpr int find_handle(std::span<const HandleDecl> table, std::string_view handle) {",
        "  for (std::size_t i = 0; i < table.size(); ++i) {",
        "    const HandleDecl& h = table[i];",
        "    if (!h.indexed) {",
        "      if (h.name == handle) return int(i);",
        "      continue;",
        "    }",
        "    std::string_view stem = h.name.substr(0, h.name.size() - 1);   // \"count_\"",
        "    if (handle.size() <= stem.size() || handle.substr(0, stem.size()) != stem) continue;",
        "    std::string_view digits = handle.substr(stem.size());",
        "    bool all = digits.size() <= 5;",
        "    for (char c : digits) all = all && c >= '0' && c <= '9';",
        "    if (all) return int(i);",
        "  }",
        "  return -1;",
        "}",
        "",
        "constexpr const ConfigKey* find_key(std::span<const ConfigKey> table, std::string_view name) {",
        "  for (const ConfigKey& k : table)",
        "    if (k.name == name) return &k;",
        "  return nullptr;",
        "}",
        "",
        "struct BlockDecl {",
        "  std::string_view type;",
        "  std::span<const ConfigKey> config;",
        "  PortDecl inputs, outputs;",
        "  std::span<const HandleDecl> read, write;",
        "};",
        "",
    ]
    for d in blocks:
        n = d["name"]
        out.append(f"namespace {n} {{")
        out.append(f"inline constexpr ConfigKey kConfig[] = {{")
        for a in d["config"]:
            out.append(f"    {{{cpp_str(a['name'])}, {cpp_str(a['type'])}, {'true' if a['required'] else 'false'}}},")
        out.append("};" if d["config"] else "};")
        out.append(f"inline constexpr PortDecl kInputs{cpp_ports(d['inputs'])};")
        out.append(f"inline constexpr PortDecl kOutputs{cpp_ports(d['outputs'])};")
        for kind, table, enum in (("read_handles", "kRead", "Read"), ("write_handles", "kWrite", "Write")):
            hs = d[kind]
            out.append(f"inline constexpr HandleDecl {table}[] = {{")
            for h in hs:
                out.append(f"    {{{cpp_str(h['name'])}, {'true' if h.get('indexed') else 'false'}}},")
            out.append("};")
            out.append(f"enum class {enum} : uint8_t {{ " + ", ".join(cpp_enum_name(h["name"]) for h in hs) + (" " if hs else "") + "};")
            fn = "read_id" if enum == "Read" else "write_id"
            out.append(f"constexpr std::optional<{enum}> {fn}(std::string_view handle) {{")
            out.append(f"  int i = find_handle({table}, handle);")
            out.append(f"  return i < 0 ? std::nullopt : std::optional<{enum}>({enum}(i));")
            out.append("}")
        out.append(f"}}  // namespace {n}")
        out.append("")
    out.append("inline constexpr BlockDecl kBlocks[] = {")
    for d in blocks:
        n = d["name"]
        out.append(f"    {{{cpp_str(n)}, {n}::kConfig, {n}::kInputs, {n}::kOutputs, {n}::kRead, {n}::kWrite}},")
    out.append("};")
    out.append("")
    out.append("constexpr const BlockDecl* find_block(std::string_view type) {")
    out.append("  for (const BlockDecl& b : kBlocks)")
    out.append("    if (b.type == type) return &b;")
    out.append("  return nullptr;")
    out.append("}")
    out.append("")
    out.append("}  // namespace obi::spec")
    out.append("")
    # An empty-array initializer is ill-formed for kConfig[] etc.: give empty tables one
    # element-free form by using std::span over a zero-length array is not allowed, so
    # empty tables are declared with an explicit extent below.
    text = "\n".join(out)
    text = re.sub(r"inline constexpr (ConfigKey|HandleDecl) (k\w+)\[\] = \{\n\};",
                  r"inline constexpr std::span<const \1> \2{};", text)
    return text


# --- Java ---------------------------------------------------------------------------------

JAVA_SCALARS = {"string": "String", "bool": "boolean", "integer": "int", "number": "double"}
JAVA_ARRAYS = {"string[]": "String", "number[]": "double", "integer[]": "long"}


def camel(name, upper=False):
    parts = name.split("_")
    s = parts[0] + "".join(p.capitalize() for p in parts[1:])
    return s[0].upper() + s[1:] if upper else s


def javadoc_text(s):
    # HTML entities for what Javadoc would read as markup; "*/" would end the comment and
    # javac reads a backslash-u as a Unicode escape even inside comments
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;") \
        .replace("*/", "*&#47;").replace("\\u", "&#92;u")


def ports_text(p, what):
    if is_int(p):
        return f"{p} {what}{'' if p == 1 else 's'}"
    if "per" in p:
        plus = p.get("plus", 0)
        return f"one {what} per element of {p['per']}" + (f", plus {plus}" if plus else "")
    return f"{what}s computed from {p['from']}"


def java_param(arg):
    n = camel(arg)
    return "configName" if n == "name" else n


def declared_methods(source):
    return set(re.findall(r"\bpublic\s+(?:final\s+)?[\w<>\[\]]+\s+(\w+)\s*\(", source))


def generate_java_block(d, extension_source):
    n = d["name"]
    base = f"{n}Extension" if extension_source is not None else "ProcessingBlock"
    taken = declared_methods(extension_source or "")
    ctor_args = [a for a in d["config"] if a["required"] and a["type"] in JAVA_SCALARS]
    lines = ["// Generated by tools/catalogue_gen.py from blocks/catalogue/" + n + ".json: do not edit.",
             "package org.openbox.api.blocks;", "",
             "/**", " * " + javadoc_text(d["description"]), " *",
             f" * <p>Ports: {ports_text(d['inputs'], 'input')}, {ports_text(d['outputs'], 'output')}. "
             f"Class: {d['class']}; spec {d['spec']}.",
             " * Config: " + (", ".join(a["name"] + " (" + javadoc_text(a["type"]) + (", required" if a["required"] else "") + ")"
                                         for a in d["config"]) or "none") + ".",
             " * Read handles: " + (", ".join(h["name"] for h in d["read_handles"]) or "none") + ".",
             " * Write handles: " + (", ".join(h["name"] for h in d["write_handles"]) or "none") + ".",
             " * Described in blocks/catalogue/" + n + ".json." +
             (f" Conveniences beyond the catalogue: {{@link {base}}}." if extension_source is not None else ""),
             " */",
             f"public final class {n} extends {base} {{", ""]
    params = ", ".join(["String name"] + [f"{JAVA_SCALARS[a['type']]} {java_param(a['name'])}" for a in ctor_args])
    lines.append(f"    public {n}({params}) {{")
    lines.append("        super(name);")
    for a in d["config"]:
        if a in ctor_args:
            lines.append(f"        set(\"{a['name']}\", {java_param(a['name'])});")
        elif a["required"] and a["type"].endswith("[]") and a["type"] not in JAVA_ARRAYS:
            lines.append(f"        list(\"{a['name']}\");")
        elif a["required"] and a["type"] in ("object", "field_map"):
            lines.append(f"        set(\"{a['name']}\", com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.objectNode());")
    lines.append("    }")
    for a in d["config"]:
        m = camel(a["name"])
        if a in ctor_args or m in taken:
            continue
        if m in JAVA_RESERVED:
            raise CatalogueError(f"blocks/catalogue/{n}.json: config '{a['name']}': the Java setter would be named "
                                 f"'{m}', which Java or ProcessingBlock reserves; write it in {n}Extension")
        doc = a.get("description", "Sets " + a["name"] + ".")
        if a["type"] in JAVA_SCALARS:
            lines += ["", f"    /** {javadoc_text(doc)} */",
                      f"    public {n} {m}({JAVA_SCALARS[a['type']]} value) {{",
                      f"        set(\"{a['name']}\", value);", "        return this;", "    }"]
        elif a["type"] in JAVA_ARRAYS:
            t = JAVA_ARRAYS[a["type"]]
            lines += ["", f"    /** Appends to {a['name']}: {javadoc_text(doc)} */",
                      f"    public {n} {m}({t}... values) {{",
                      f"        for ({t} v : values) {{", f"            list(\"{a['name']}\").add(v);", "        }",
                      "        return this;", "    }"]
        elif extension_source is None:
            raise CatalogueError(f"blocks/catalogue/{n}.json: config '{a['name']}': type {a['type']} has no generated "
                                 f"Java setter; write one in {n}Extension (obc/api/src/main/java/org/openbox/api/blocks)")
        # else: the extension writes it (BlockTypesTest checks every argument has a writer)
    ranges = [a for a in d["config"] if "minimum" in a or "maximum" in a]
    if ranges:
        lines += ["", "    /** Checks the catalogue's value ranges (after what the extension checks). */",
                  "    @Override", "    public void check() {", "        super.check();"]
        for a in ranges:
            lo = a.get("minimum", -(1 << 63))
            hi = a.get("maximum", (1 << 63) - 1)
            lit = lambda v: "Long.MIN_VALUE" if v == -(1 << 63) else "Long.MAX_VALUE" if v == (1 << 63) - 1 else f"{v}L"
            lines.append(f"        requireRange(\"{a['name']}\", {lit(lo)}, {lit(hi)});")
        lines.append("    }")
    lines += ["}", ""]
    return "\n".join(lines)


def generate_java(blocks, outdir, ext_dir):
    pkg = os.path.join(outdir, "org", "openbox", "api", "blocks")
    wanted = set()
    for d in blocks:
        ext = os.path.join(ext_dir, f"{d['name']}Extension.java") if ext_dir else None
        src = None
        if ext and os.path.exists(ext):
            with open(ext, encoding="utf-8") as f:
                src = f.read()
        path = os.path.join(pkg, d["name"] + ".java")
        write_if_changed(path, generate_java_block(d, src))
        wanted.add(path)
    names = [d["name"] for d in blocks]
    types = ["// Generated by tools/catalogue_gen.py from blocks/catalogue/*.json: do not edit.",
             "package org.openbox.api.blocks;", "", "import java.util.List;", "",
             "/** Every typed block class, one per catalogue block type (blocks/catalogue/*.json). */",
             "public final class BlockTypes {", "",
             "    /** All typed block classes, in the catalogue's (alphabetical) order. */",
             "    public static final List<Class<? extends ProcessingBlock>> ALL = List.of("]
    types += [f"            {n}.class{',' if i + 1 < len(names) else ');'}" for i, n in enumerate(names)]
    types += ["", "    private BlockTypes() {", "    }", "}", ""]
    path = os.path.join(pkg, "BlockTypes.java")
    write_if_changed(path, "\n".join(types))
    wanted.add(path)
    # A descriptor removed from the catalogue takes its generated class with it.
    for f in os.listdir(pkg):
        p = os.path.join(pkg, f)
        if f.endswith(".java") and p not in wanted:
            os.remove(p)


def main(argv):
    ap = argparse.ArgumentParser(description="Generate code from the block catalogue.")
    ap.add_argument("--catalogue", required=True, help="directory of <Type>.json descriptors")
    ap.add_argument("--cpp", help="write the C++ header here")
    ap.add_argument("--java", help="write the Java builder sources under this directory")
    ap.add_argument("--java-extensions", help="directory of hand-written <Type>Extension.java")
    args = ap.parse_args(argv)
    try:
        blocks = load_catalogue(args.catalogue)
        if args.cpp:
            write_if_changed(args.cpp, generate_cpp(blocks))
        if args.java:
            generate_java(blocks, args.java, args.java_extensions)
    except CatalogueError as e:
        print(f"catalogue_gen: {e}", file=sys.stderr)
        return 1
    except OSError as e:
        print(f"catalogue_gen: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
