//! Editor schemas: the shipped `schema/*.json` are what `skitter schema`
//! prints (so they cannot go stale), every shipped file and every template
//! names its schema and validates against it, and the schemas refuse what
//! the loader refuses by shape (unknown fields, wrong types, missing
//! required fields, unknown solver names).

use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use skitter::config::{CreatureTemplate, SchemaKind, TemplateGait, schema};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn schema_value(kind: SchemaKind) -> Value {
    serde_json::from_str(&schema(kind)).unwrap()
}

/// Where `value` breaks `schema` (empty: it conforms), for the parts of
/// JSON Schema the generated schemas use: `$ref` into `$defs`, `type`,
/// `properties`, `required`, `additionalProperties: false`, `items`,
/// `minItems`/`maxItems`, `enum`/`const`, `anyOf`/`oneOf` and
/// `minimum`/`maximum`. Any keyword outside that set fails the test, so
/// the validator cannot silently skip a rule.
fn violations(value: &Value, schema: &Value, root: &Value, path: &str) -> Vec<String> {
    let mut out = Vec::new();
    let Some(object) = schema.as_object() else {
        if schema == &Value::Bool(false) {
            out.push(format!("{path}: nothing is allowed here"));
        }
        return out;
    };
    for (keyword, rule) in object {
        match keyword.as_str() {
            "$schema" | "title" | "description" | "format" | "$defs" | "default" => {}
            "$ref" => {
                let name = rule.as_str().unwrap().trim_start_matches("#/$defs/");
                out.extend(violations(value, &root["$defs"][name], root, path));
            }
            "type" => {
                let types: Vec<&str> = match rule {
                    Value::String(t) => vec![t.as_str()],
                    Value::Array(ts) => ts.iter().map(|t| t.as_str().unwrap()).collect(),
                    other => panic!("type {other}"),
                };
                let fits = types.iter().any(|t| match *t {
                    "object" => value.is_object(),
                    "array" => value.is_array(),
                    "string" => value.is_string(),
                    "number" => value.is_number(),
                    "integer" => value.is_i64() || value.is_u64(),
                    "boolean" => value.is_boolean(),
                    "null" => value.is_null(),
                    other => panic!("unknown type {other}"),
                });
                if !fits {
                    out.push(format!("{path}: {value} is not {types:?}"));
                }
            }
            "properties" => {
                if let Some(fields) = value.as_object() {
                    for (key, sub) in rule.as_object().unwrap() {
                        if let Some(v) = fields.get(key) {
                            out.extend(violations(v, sub, root, &format!("{path}.{key}")));
                        }
                    }
                }
            }
            "required" => {
                if let Some(fields) = value.as_object() {
                    for key in rule.as_array().unwrap() {
                        if !fields.contains_key(key.as_str().unwrap()) {
                            out.push(format!("{path}: missing {key}"));
                        }
                    }
                }
            }
            "additionalProperties" => {
                assert_eq!(rule, &Value::Bool(false), "{path}");
                if let Some(fields) = value.as_object() {
                    let known = object["properties"].as_object().unwrap();
                    for key in fields.keys() {
                        if !known.contains_key(key) {
                            out.push(format!("{path}: unknown field {key}"));
                        }
                    }
                }
            }
            "items" => {
                if let Some(items) = value.as_array() {
                    for (i, item) in items.iter().enumerate() {
                        out.extend(violations(item, rule, root, &format!("{path}[{i}]")));
                    }
                }
            }
            "minItems" | "maxItems" => {
                if let Some(items) = value.as_array() {
                    let bound = rule.as_u64().unwrap() as usize;
                    let ok = if keyword == "minItems" {
                        items.len() >= bound
                    } else {
                        items.len() <= bound
                    };
                    if !ok {
                        out.push(format!(
                            "{path}: {} items breaks {keyword} {bound}",
                            items.len()
                        ));
                    }
                }
            }
            "enum" => {
                if !rule.as_array().unwrap().contains(value) {
                    out.push(format!("{path}: {value} is not one of {rule}"));
                }
            }
            "const" => {
                if rule != value {
                    out.push(format!("{path}: {value} is not {rule}"));
                }
            }
            "anyOf" | "oneOf" => {
                let fitting = rule
                    .as_array()
                    .unwrap()
                    .iter()
                    .filter(|alternative| violations(value, alternative, root, path).is_empty())
                    .count();
                let ok = if keyword == "anyOf" {
                    fitting > 0
                } else {
                    fitting == 1
                };
                if !ok {
                    out.push(format!("{path}: {value} fits {fitting} of {keyword}"));
                }
            }
            "minimum" | "maximum" => {
                if let (Some(v), Some(bound)) = (value.as_f64(), rule.as_f64()) {
                    let ok = if keyword == "minimum" {
                        v >= bound
                    } else {
                        v <= bound
                    };
                    if !ok {
                        out.push(format!("{path}: {v} breaks {keyword} {bound}"));
                    }
                }
            }
            other => panic!("the test's validator does not know `{other}` (at {path})"),
        }
    }
    out
}

/// A TOML file's text as JSON, checked against the schema of its kind.
fn check_text(kind: SchemaKind, name: &str, text: &str) -> Vec<String> {
    let table: toml::Table = toml::from_str(text).unwrap_or_else(|e| panic!("{name}: {e}"));
    let value = serde_json::to_value(table).unwrap();
    let schema = schema_value(kind);
    violations(&value, &schema, &schema, name)
}

fn toml_files(dir: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(root().join(dir))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "toml"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no files in {dir}");
    files
}

#[test]
fn shipped_schemas_are_what_skitter_schema_prints() {
    for kind in SchemaKind::ALL {
        let path = root().join("schema").join(format!("{}.json", kind.name()));
        let shipped =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(
            shipped == schema(kind),
            "{} is stale: regenerate it with `cargo run -- schema {} > {}`",
            path.display(),
            kind.name(),
            Path::new("schema")
                .join(format!("{}.json", kind.name()))
                .display()
        );
    }
}

#[test]
fn every_shipped_file_names_its_schema_and_conforms() {
    for (dir, kind) in [
        ("creatures", SchemaKind::Creature),
        ("terrain", SchemaKind::Terrain),
        ("scenes", SchemaKind::Scene),
    ] {
        for path in toml_files(dir) {
            let text = std::fs::read_to_string(&path).unwrap();
            let directive = format!("#:schema ../schema/{}.json", kind.name());
            assert_eq!(
                text.lines().next(),
                Some(directive.as_str()),
                "{} must start with the schema directive",
                path.display()
            );
            let problems = check_text(kind, &path.display().to_string(), &text);
            assert!(problems.is_empty(), "{problems:#?}");
        }
    }
}

#[test]
fn every_template_conforms() {
    for legs in 2..=12 {
        for gait in TemplateGait::ALL {
            let template = CreatureTemplate {
                name: format!("t{legs}"),
                legs,
                bones: 3,
                gait,
            };
            if let Ok(text) = template.render() {
                let problems = check_text(SchemaKind::Creature, &template.name, &text);
                assert!(problems.is_empty(), "{problems:#?}");
            }
        }
    }
}

#[test]
fn the_schemas_refuse_what_the_loader_refuses_by_shape() {
    let spider = std::fs::read_to_string(root().join("creatures/spider.toml")).unwrap();
    let broken = [
        spider.replace("[body]", "[body]\ncolour = \"red\""),
        spider.replacen("height = ", "height = \"tall\" # ", 1),
        spider.replacen("kind = \"fabrik\"", "kind = \"fabrick\"", 1),
        spider.replacen("name = \"spider\"", "", 1),
        // The loader refuses a written but empty list of groups.
        spider.replacen("groups = [", "groups = [] # [", 1),
    ];
    for (i, text) in broken.iter().enumerate() {
        assert_ne!(text, &spider, "case {i} changed nothing");
        let problems = check_text(SchemaKind::Creature, &format!("case {i}"), text);
        assert!(!problems.is_empty(), "case {i} passed the schema");
    }
    // The solver names the schema offers are exactly the solvers there are.
    let schema = schema_value(SchemaKind::Creature);
    let names = &schema["$defs"]["SolverName"];
    let listed: Vec<Value> = names["oneOf"]
        .as_array()
        .map(|alternatives| {
            alternatives
                .iter()
                .flat_map(|a| {
                    a["enum"]
                        .as_array()
                        .cloned()
                        .unwrap_or_else(|| vec![a["const"].clone()])
                })
                .collect()
        })
        .or_else(|| names["enum"].as_array().cloned())
        .unwrap();
    let solvers: Vec<Value> = skitter::ik::SolverKind::ALL
        .iter()
        .map(|k| json!(k.name()))
        .collect();
    assert_eq!(listed, solvers);
}
