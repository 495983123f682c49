package cosmosstore

import (
	"encoding/json"
	"fmt"
)

// Data actions of Cosmos DB's role-based access control.
const (
	actionReadMetadata = "Microsoft.DocumentDB/databaseAccounts/readMetadata"
	actionItems        = "Microsoft.DocumentDB/databaseAccounts/sqlDatabases/containers/items/"
	actionQuery        = "Microsoft.DocumentDB/databaseAccounts/sqlDatabases/containers/executeQuery"
)

// RoleDefinition returns the least-privilege Cosmos DB SQL role definition
// (JSON, the body of az cosmosdb sql role definition create) for a store on
// database/container. Without admin it is what a service running the
// driver needs: reading the account's metadata, and reading and replacing
// the container's items (reservations, releases, ALTER and setval). With
// admin it adds what seqctl and sequence DDL need: creating and deleting
// items, and queries (List). Cosmos DB cannot confine a role to a key
// prefix: the scope is the whole container. Creating the database and the
// container (seqctl init) is not a data action; it needs the account key
// or a control-plane role.
func RoleDefinition(database, container string, admin bool) string {
	name, actions := "seqshim service", []string{actionReadMetadata, actionItems + "read", actionItems + "replace"}
	if admin {
		name = "seqshim admin"
		actions = append(actions, actionItems+"create", actionItems+"delete", actionQuery)
	}
	def := map[string]any{
		"RoleName":         fmt.Sprintf("%s (%s/%s)", name, database, container),
		"Type":             "CustomRole",
		"AssignableScopes": []string{"/dbs/" + database + "/colls/" + container},
		"Permissions":      []map[string]any{{"DataActions": actions}},
	}
	b, err := json.MarshalIndent(def, "", "  ")
	if err != nil { // maps of strings: cannot fail
		panic(err)
	}
	return string(b) + "\n"
}
