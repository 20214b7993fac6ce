// xapi-validate.js FILE — validates every statement of a JSON array (ward report --format xapi)
// with Learning Locker's xapi-validation (resolved from NODE_PATH); exits 1 on any warning.
"use strict";
const fs = require("fs");
const validate = require("xapi-validation").default;

const statements = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
if (!Array.isArray(statements) || statements.length === 0) {
	console.error("xapi-validate: no statements to validate");
	process.exit(1);
}
let bad = 0;
statements.forEach((s, i) => {
	const warnings = validate(s);
	if (warnings.length > 0) {
		bad++;
		console.error(`statement ${i} (${s.id}): ` + warnings.map((w) => `${w.path.join(".")}: ${w.constructor.name}`).join("; "));
	}
});
const verbs = new Set(statements.map((s) => s.verb.id.split("/").pop()));
console.log(`${statements.length - bad} of ${statements.length} statements valid (verbs: ${[...verbs].sort().join(", ")})`);
process.exit(bad > 0 ? 1 : 0);
