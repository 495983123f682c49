// Starts the Cosmos DB emulator the tests use, @vercel/cosmosdb-server (its
// version is pinned in scripts/testenv.sh), on plain HTTP with keep-alive:
//
//   node scripts/cosmosdb-server.js NODE_MODULES_DIR HOST PORT
//
// with one fix, so that it answers as Cosmos DB does: a point read of a
// document that does not exist is 404 NotFound. The package's handler
// (lib/handler/read-document.js, 1.0.1) reads a property of the missing
// document and answers 500 instead, which the Azure SDK retries as a
// server error. Nothing else is changed.
"use strict";
const path = require("path");
const [dir, host, port] = process.argv.slice(2);
const lib = path.join(dir, "@vercel/cosmosdb-server/lib");

const readDocument = require(path.join(lib, "handler/read-document"));
const partition = require(path.join(lib, "utils/get-partition-from-header"));
const read = readDocument.default;
readDocument.default = (account, req, res, params) => {
	const collection = account.database(params.dbId).collection(params.collId);
	if (collection.read()) {
		let key;
		try {
			key = partition.parsePartitionKey(partition.default(req), params.docId);
		} catch (e) {
			return read(account, req, res, params); // its own answer to a bad header
		}
		if (!collection.document(params.docId, key).read()) {
			res.statusCode = 404;
			return { code: "NotFound", message: "Entity with the specified id does not exist in the system." };
		}
	}
	return read(account, req, res, params);
};

process.on("uncaughtException", (e) => {
	if (e && e.syscall === "listen") {
		console.error("cosmosdb-server:", e.message);
		process.exit(1);
	}
	console.error("cosmosdb-server: uncaught:", e && e.stack);
});

const { createHttpServer } = require(lib);
const server = createHttpServer({ keepAlive: true });
server.keepAliveTimeout = 60000;
server.listen(Number(port), host, () => {
	console.log(`cosmosdb-server on http://${host}:${port}`);
});
