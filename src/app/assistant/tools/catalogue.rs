//! The tools the model may call, as it is told of them: a flat JSON-schema
//! `parameters` object per tool (no `$ref`, no `$defs`, no empty `enum`:
//! local models refuse or misread them). The property names of a write
//! tool are the camelCase input names of its record, so Confirm books the
//! arguments as they are.

use super::reads::READ_TOOLS;
use super::write::{Field, Ty, WRITE_TOOLS};
use crate::domain::recurrence::Frequency;
use crate::services::ai::Tool;
use serde_json::{json, Map, Value};

pub(super) fn schema_of(ty: Ty, about: &str) -> Value {
    match ty {
        Ty::Text | Ty::Date => json!({"type": "string", "description": about}),
        Ty::Amount => json!({"type": "number", "description": about}),
        Ty::Bool => json!({"type": "boolean", "description": about}),
        Ty::Frequency(once) => {
            let mut codes: Vec<&str> = Vec::new();
            if once {
                codes.push("once");
            }
            codes.extend(Frequency::RECURRING.iter().map(|f| f.code()));
            json!({"type": "string", "enum": codes, "description": about})
        }
    }
}

/// Every tool the model may call.
pub fn catalogue() -> Vec<Tool> {
    let mut tools = Vec::new();
    for (name, description, params, required, _) in READ_TOOLS {
        let properties: Map<String, Value> = params
            .iter()
            .map(|(p, ty, about)| (p.to_string(), json!({"type": ty, "description": about})))
            .collect();
        tools.push(Tool {
            name: name.to_string(),
            description: description.to_string(),
            parameters: json!({"type": "object", "properties": properties, "required": required}),
        });
    }
    for tool in WRITE_TOOLS.iter() {
        let update = tool.update;
        let mut properties = Map::new();
        let mut required = Vec::new();
        if update {
            properties.insert(
                "id".into(),
                json!({"type": "string", "description": "id of the record to change"}),
            );
            required.push("id");
        }
        for Field(field, ty, needed, about) in tool.fields {
            properties.insert(field.to_string(), schema_of(*ty, about));
            if *needed && !update {
                required.push(field);
            }
        }
        let description = if update {
            format!(
                "Proposes to change {}. Give only the fields to change; the others keep their \
                 values, and null clears an optional one (endDate, categoryId). Nothing is saved \
                 until the user confirms the preview.",
                tool.about
            )
        } else {
            format!(
                "Proposes to add {}. Nothing is saved until the user confirms the preview.",
                tool.about
            )
        };
        tools.push(Tool {
            name: tool.name.clone(),
            description,
            parameters: json!({"type": "object", "properties": properties, "required": required}),
        });
    }
    tools
}
