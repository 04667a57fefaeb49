package sharedplans

import "encoding/json"

// Instructions tells a model how to use the plan tools; MCP servers can send it as their
// instructions. It covers what docker-agent's toolset instructions cover, in our own words.
const Instructions = `## Shared plans

Shared plans are named markdown documents that several agents (and people) read and edit. Every
agent using these tools sees the same plans.

- list_plans shows the plans that exist; read_plan shows one before you act on it or change it.
- write_plan creates or replaces a plan. It replaces the whole content, so read first and keep
  what should stay. Give a title, and set author to your agent name. Each write bumps the
  revision.
- delete_plan removes a plan that is no longer needed.

Editing a large plan cheaply: export_plan_to_file writes the content to a file without returning
it; edit that file with your file tools; update_plan_from_file with the same path commits it.

Status is a free-form label of your choosing (e.g. "idle", "in-progress", "blocked", "done"):
set_plan_status and get_plan_status handle it without the body, or pass status when writing.

Concurrent edits: reads return a revision. Pass the revision you last read as
last_known_revision to write_plan, update_plan_from_file, set_plan_status or delete_plan. If
someone changed the plan meanwhile, the call fails with a version conflict: re-read and retry.

Plan names use lowercase letters, digits, '-' and '_' only, starting with a letter or digit
(e.g. "release-2025", "db_migration").`

const (
	descWritePlan          = "Create or replace a shared plan by name. The content replaces the whole document, so read the plan first and keep what should stay. Every write increments the revision."
	descReadPlan           = "Read a shared plan by name: its title, content, author, status and revision."
	descUpdatePlanFromFile = "Create or replace a shared plan with the contents of a file instead of inline content. Pair it with export_plan_to_file to edit a large plan without sending its body. Every write increments the revision."
	descExportPlanToFile   = "Write a shared plan's content to a file. The content is written to disk and NOT returned, so a plan can be edited on disk cheaply and committed back with update_plan_from_file."
	descSetPlanStatus      = "Set a shared plan's free-form status (e.g. 'in-progress', 'blocked', 'done') without rewriting its content. The plan must already exist. Every call increments the revision."
	descGetPlanStatus      = "Read a shared plan's status and current revision without its content."
	descListPlans          = "List all shared plans with their name, title, author, status and revision."
	descDeletePlan         = "Delete a shared plan by name."
)

// Input schemas follow the shape docker-agent's generator gives them: closed objects, fields
// without omitempty required, an optional integer as ["null","integer"].
var (
	schemaWritePlan = json.RawMessage(`{"type":"object","required":["name","content"],"properties":{` +
		`"name":{"type":"string","description":"Plan name: lowercase letters, digits, '-' and '_' only, starting with a letter or digit (e.g. 'release', 'db-migration')."},` +
		`"content":{"type":"string","description":"The complete plan content (markdown). It replaces the current content."},` +
		propTitle + `,` + propAuthor + `,` + propStatus + `,` + propGuard + `},"additionalProperties":false}`)

	schemaReadPlan = nameOnly("Name of the plan to read.")

	schemaUpdatePlanFromFile = json.RawMessage(`{"type":"object","required":["name","path"],"properties":{` +
		`"name":{"type":"string","description":"Plan name: lowercase letters, digits, '-' and '_' only."},` +
		`"path":{"type":"string","description":"Path of a file whose contents become the plan's new content, so edits can be committed without sending the whole body."},` +
		propTitle + `,` + propAuthor + `,` + propStatus + `,` + propGuard + `},"additionalProperties":false}`)

	schemaExportPlanToFile = json.RawMessage(`{"type":"object","required":["name","path"],"properties":{` +
		`"name":{"type":"string","description":"Name of the plan to export."},` +
		`"path":{"type":"string","description":"Path of the file to write the plan content to. The content is written there and NOT returned."}` +
		`},"additionalProperties":false}`)

	schemaSetPlanStatus = json.RawMessage(`{"type":"object","required":["name","status"],"properties":{` +
		`"name":{"type":"string","description":"Name of the plan whose status to set."},` +
		`"status":{"type":"string","description":"The new free-form status (e.g. 'in-progress', 'blocked', 'done'), in your own vocabulary."},` +
		propGuard + `},"additionalProperties":false}`)

	schemaGetPlanStatus = nameOnly("Name of the plan whose status to read.")

	// docker-agent registers list_plans without parameters (sent as {"type":"object"}); it is
	// closed here like every other tool's, so a stray argument is refused rather than ignored.
	schemaListPlans = json.RawMessage(`{"type":"object","properties":{},"additionalProperties":false}`)

	schemaDeletePlan = json.RawMessage(`{"type":"object","required":["name"],"properties":{` +
		`"name":{"type":"string","description":"Name of the plan to delete."},` +
		`"last_known_revision":{"type":["null","integer"],"description":"Optional optimistic-lock guard: the delete fails with a version conflict unless this equals the plan's current revision."}` +
		`},"additionalProperties":false}`)
)

const (
	propTitle  = `"title":{"type":"string","description":"Optional human-readable title; kept from the previous revision when omitted."}`
	propAuthor = `"author":{"type":"string","description":"Optional label for who is writing, usually your agent name; kept from the previous revision when omitted."}`
	propStatus = `"status":{"type":"string","description":"Optional free-form status (e.g. 'in-progress', 'blocked', 'done'); kept from the previous revision when omitted."}`
	propGuard  = `"last_known_revision":{"type":["null","integer"],"description":"Optional optimistic-lock guard: the write fails with a version conflict unless this equals the plan's current revision. Read the plan first to get it."}`
)

func nameOnly(desc string) json.RawMessage {
	return json.RawMessage(`{"type":"object","required":["name"],"properties":{"name":{"type":"string","description":` +
		quote(desc) + `}},"additionalProperties":false}`)
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// Output schemas.
var (
	planProps = `"name":{"type":"string"},"title":{"type":"string"},"content":{"type":"string"},` +
		`"author":{"type":"string"},"status":{"type":"string"},"revision":{"type":"integer"},"updatedAt":{"type":"string"}`
	summarySchema = `{"type":"object","required":["name","revision","updatedAt"],"properties":{` +
		`"name":{"type":"string"},"title":{"type":"string"},"author":{"type":"string"},"status":{"type":"string"},` +
		`"revision":{"type":"integer"},"updatedAt":{"type":"string"}},"additionalProperties":false}`

	schemaPlan = json.RawMessage(`{"type":"object","required":["name","content","revision","updatedAt"],"properties":{` +
		planProps + `},"additionalProperties":false}`)
	schemaListResult = json.RawMessage(`{"type":"object","required":["plans"],"properties":{` +
		`"plans":{"type":"array","items":` + summarySchema + `},"warnings":{"type":"array","items":{"type":"string"}}},"additionalProperties":false}`)
	schemaStatusView = json.RawMessage(`{"type":"object","required":["name","status","revision"],"properties":{` +
		`"name":{"type":"string"},"status":{"type":"string"},"revision":{"type":"integer"}},"additionalProperties":false}`)
	schemaExportResult = json.RawMessage(`{"type":"object","required":["name","path","revision","bytesWritten"],"properties":{` +
		`"name":{"type":"string"},"path":{"type":"string"},"title":{"type":"string"},"status":{"type":"string"},` +
		`"revision":{"type":"integer"},"bytesWritten":{"type":"integer"}},"additionalProperties":false}`)
)
