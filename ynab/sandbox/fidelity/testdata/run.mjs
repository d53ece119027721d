// Runs YNAB's official JavaScript SDK (npm ynab 4.1.0, and 2.10.0 for the old /budgets paths)
// against a YNAB API at the URL given, the way a client built on it would: every operation of
// the SDK, each answer parsed by the SDK and validated against the schemas of YNAB's OpenAPI
// spec, and every write followed by a read that shows its effect.
//
//   node run.mjs http://127.0.0.1:PORT/v1 path/to/ynab-openapi-1.86.yaml YYYY-MM-DD
//
// The date is the API's today (the sandbox's Now), for the dates of the writes.
//
// It prints one line per failure and ends with "N passed, M failed"; it exits 1 on a failure.

import { readFileSync } from "node:fs";
import { parse } from "yaml";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";

const [base, specPath, today] = process.argv.slice(2);
if (!base || !specPath || !/^\d{4}-\d{2}-\d{2}$/.test(today ?? "")) {
  console.error("usage: node run.mjs BASE_URL SPEC_YAML TODAY");
  process.exit(2);
}

// Every answer is recorded as it comes off the wire, before the SDK parses it.
const answers = [];
const realFetch = globalThis.fetch;
globalThis.fetch = async (url, init) => {
  const res = await realFetch(url, init);
  const text = await res.clone().text();
  answers.push({ method: (init?.method || "GET").toUpperCase(), url: String(url), status: res.status, text });
  return res;
};
const ynab = (await import("ynab")).default ?? (await import("ynab"));
const ynab2 = (await import("ynab2")).default ?? (await import("ynab2"));

// The spec's schemas, for ajv (OpenAPI 3.1 schemas are JSON Schema 2020-12).
const spec = parse(readFileSync(specPath, "utf8"));
// One schema, default_plan's, still says "nullable: true" the OpenAPI 3.0 way: read it as the
// 3.1 spelling, "or null".
function nullable(node) {
  if (Array.isArray(node)) return node.map(nullable);
  if (node === null || typeof node !== "object") return node;
  const out = {};
  for (const [k, v] of Object.entries(node)) out[k] = nullable(v);
  if (!("nullable" in out)) return out;
  const isNullable = out.nullable === true;
  delete out.nullable;
  if (!isNullable) return out;
  if (typeof out.type === "string") return { ...out, type: [out.type, "null"] };
  return { anyOf: [out, { type: "null" }] };
}
spec.components = nullable(spec.components);
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
ajv.addSchema({ $id: "https://ynab.spec/openapi", components: spec.components });
const operations = [];
for (const [path, item] of Object.entries(spec.paths)) {
  for (const [method, op] of Object.entries(item)) {
    const re = new RegExp("^" + path.replace(/\{[^}]+\}/g, "[^/]+") + "$");
    operations.push({ method: method.toUpperCase(), path, re, op });
  }
}

let passed = 0;
let failed = 0;
const fail = (what, detail) => {
  failed++;
  console.log(`FAIL ${what}: ${detail}`);
};
const check = (cond, what, detail = "") => (cond ? passed++ : fail(what, detail));

// validate checks the answers recorded since index `from` against the spec.
const covered = new Set();
function validate(from) {
  for (const a of answers.slice(from)) {
    let path = new URL(a.url).pathname.replace(/^\/v1/, "");
    let body = JSON.parse(a.text);
    const legacy = path.startsWith("/budgets");
    if (legacy) {
      path = path.replace(/^\/budgets/, "/plans");
      const d = body.data;
      for (const [old, now] of [["budgets", "plans"], ["default_budget", "default_plan"], ["budget", "plan"]]) {
        if (d && old in d) {
          d[now] = d[old];
          delete d[old];
        }
      }
    }
    const what = `${a.method} ${legacy ? "/budgets" : ""}${path} (${a.status})`;
    if (legacy && path.endsWith("/transactions/bulk")) {
      const ok = ajv.validate({ $ref: "https://ynab.spec/openapi#/components/schemas/BulkResponse" }, body);
      check(ok, what, ajv.errorsText());
      covered.add("POST /bulk");
      continue;
    }
    const op = operations.find((o) => o.method === a.method && o.re.test(path) &&
      !operations.some((p) => p !== o && p.method === a.method && p.re.test(path) && p.path.split("{").length < o.path.split("{").length));
    if (!op) {
      fail(what, "no operation of the spec has this path");
      continue;
    }
    const response = op.op.responses[String(a.status)];
    if (!response) {
      fail(what, `the spec documents no ${a.status} for ${op.op.operationId}`);
      continue;
    }
    const ref = response.content["application/json"].schema.$ref.replace("#", "https://ynab.spec/openapi#");
    if (ajv.validate({ $ref: ref }, body)) {
      passed++;
      if (a.status < 300) covered.add(op.op.operationId);
    } else {
      fail(what, `${op.op.operationId}: ${ajv.errorsText(ajv.errors, { separator: "; " })}`);
    }
  }
}

// step runs one SDK call: the SDK must parse the answer; then the answers are validated.
async function step(name, fn) {
  const from = answers.length;
  try {
    const out = await fn();
    validate(from);
    return out;
  } catch (e) {
    validate(from);
    // SDK 4 throws a ResponseError; SDK 2 throws YNAB's error body itself.
    const detail = e?.response || e?.error ? `HTTP ${answers.at(-1)?.status}: ${answers.at(-1)?.text}` : String(e?.stack || e);
    fail(name, detail);
    return undefined;
  }
}

const token = "fidelity-token";
const api = new ynab.API(token, base);
const config = new ynab.Configuration({ accessToken: token, basePath: base });
const movementsApi = new ynab.MoneyMovementsApi(config);
// 4.1.0 ships the deprecated bulk endpoint without exporting it from its index.
const { DeprecatedApi } = await import("ynab/dist/apis/DeprecatedApi.js");
const deprecated = new DeprecatedApi(config);
const p = "last-used";
const byName = (list, name) => list.find((x) => x.name === name);

// Reads, through every read operation.
await step("getUser", () => api.user.getUser());
const plans = await step("getPlans", () => api.plans.getPlans(true));
const planId = plans?.data.default_plan?.id;
check(planId && plans.data.plans.length >= 1, "getPlans", "no default plan");
const full = await step("getPlanById", () => api.plans.getPlanById(planId));
const knowledge = full?.data.server_knowledge;
await step("getPlanSettingsById", () => api.plans.getPlanSettingsById(p));
const accounts = (await step("getAccounts", () => api.accounts.getAccounts(p)))?.data.accounts ?? [];
const checking = byName(accounts, "Betaalrekening");
const savings = byName(accounts, "Spaarrekening");
await step("getAccountById", () => api.accounts.getAccountById(p, checking.id));
const groups = (await step("getCategories", () => api.categories.getCategories(p)))?.data.category_groups ?? [];
const categories = groups.flatMap((g) => g.categories);
const cat = (name) => byName(categories, name);
await step("getCategoryById", () => api.categories.getCategoryById(p, cat("Huur").id));
await step("getMonthCategoryById", () => api.categories.getMonthCategoryById(p, "current", cat("Huur").id));
await step("getPlanMonths", () => api.months.getPlanMonths(p));
await step("getPlanMonth", () => api.months.getPlanMonth(p, "current"));
const payees = (await step("getPayees", () => api.payees.getPayees(p)))?.data.payees ?? [];
const ah = byName(payees, "Albert Heijn");
await step("getPayeeById", () => api.payees.getPayeeById(p, ah.id));
const locations = (await step("getPayeeLocations", () => api.payeeLocations.getPayeeLocations(p)))?.data.payee_locations ?? [];
check(locations.length > 0, "getPayeeLocations", "the sample has payee locations");
await step("getPayeeLocationById", () => api.payeeLocations.getPayeeLocationById(p, locations[0].id));
await step("getPayeeLocationsByPayee", () => api.payeeLocations.getPayeeLocationsByPayee(p, ah.id));
await step("getMoneyMovements", () => movementsApi.getMoneyMovements(p));
await step("getMoneyMovementsByMonth", () => movementsApi.getMoneyMovementsByMonth(p, "current"));
await step("getMoneyMovementGroups", () => movementsApi.getMoneyMovementGroups(p));
await step("getMoneyMovementGroupsByMonth", () => movementsApi.getMoneyMovementGroupsByMonth(p, "current"));
const txs = (await step("getTransactions", () => api.transactions.getTransactions(p)))?.data.transactions ?? [];
const split = txs.find((t) => t.subtransactions.length > 0);
await step("getTransactionById", () => api.transactions.getTransactionById(p, split.id));
await step("getTransactionsByAccount", () => api.transactions.getTransactionsByAccount(p, checking.id, "2026-01-01"));
await step("getTransactionsByCategory", () => api.transactions.getTransactionsByCategory(p, cat("Boodschappen").id));
await step("getTransactionsByPayee", () => api.transactions.getTransactionsByPayee(p, ah.id, undefined, "unapproved"));
await step("getTransactionsByMonth", () => api.transactions.getTransactionsByMonth(p, "current"));
const scheduled = (await step("getScheduledTransactions", () => api.scheduledTransactions.getScheduledTransactions(p)))?.data.scheduled_transactions ?? [];
await step("getScheduledTransactionById", () => api.scheduledTransactions.getScheduledTransactionById(p, scheduled[0].id));

// Writes, each followed by a read that shows its effect.
const date = (days) => {
  const d = new Date(Date.parse(today) + days * 86400000);
  return d.toISOString().slice(0, 10);
};
const account = (await step("createAccount", () => api.accounts.createAccount(p, { account: { name: "Fidelity", type: "checking", balance: 100000 } })))?.data.account;
const readAccount = await step("getAccountById", () => api.accounts.getAccountById(p, account.id));
check(readAccount?.data.account.balance === 100000, "createAccount then read", JSON.stringify(readAccount?.data.account));

const payee = (await step("createPayee", () => api.payees.createPayee(p, { payee: { name: "Fidelity payee" } })))?.data.payee;
await step("updatePayee", () => api.payees.updatePayee(p, payee.id, { payee: { name: "Fidelity payee renamed" } }));
const readPayee = await step("getPayeeById", () => api.payees.getPayeeById(p, payee.id));
check(readPayee?.data.payee.name === "Fidelity payee renamed", "updatePayee then read", readPayee?.data.payee.name);

const group = (await step("createCategoryGroup", () => api.categories.createCategoryGroup(p, { category_group: { name: "Fidelity" } })))?.data.category_group;
await step("updateCategoryGroup", () => api.categories.updateCategoryGroup(p, group.id, { category_group: { name: "Fidelity group" } }));
const newCat = (await step("createCategory", () => api.categories.createCategory(p, { category: { name: "Fidelity cat", category_group_id: group.id } })))?.data.category;
await step("updateCategory", () => api.categories.updateCategory(p, newCat.id, { category: { goal_target: 50000, goal_frequency: "monthly" } }));
await step("updateMonthCategory", () => api.categories.updateMonthCategory(p, "current", newCat.id, { category: { budgeted: 25000 } }));
const readCat = await step("getMonthCategoryById", () => api.categories.getMonthCategoryById(p, "current", newCat.id));
check(readCat?.data.category.budgeted === 25000 && readCat.data.category.goal_target === 50000 &&
  readCat.data.category.category_group_name === "Fidelity group", "category writes then read", JSON.stringify(readCat?.data.category));
const moves = await step("getMoneyMovementsByMonth", () => movementsApi.getMoneyMovementsByMonth(p, "current"));
check(moves?.data.money_movements.some((m) => m.to_category_id === newCat.id && m.amount === 25000), "updateMonthCategory then money movements");

const created = (await step("createTransaction", () => api.transactions.createTransaction(p, { transaction: {
  account_id: account.id, date: date(-1), amount: -12340, payee_id: payee.id, category_id: newCat.id, memo: "fidelity" } })))?.data;
const createdMany = (await step("createTransaction (bulk)", () => api.transactions.createTransaction(p, { transactions: [
  { account_id: account.id, date: date(-2), amount: -1000, payee_name: "Fidelity bulk", import_id: "fidelity:1" },
  { account_id: account.id, date: date(-2), amount: -2000, payee_id: savings.transfer_payee_id },
] })))?.data;
check(createdMany?.transaction_ids.length === 2, "createTransaction (bulk)", JSON.stringify(createdMany));
const transfer = createdMany?.transactions.find((t) => t.transfer_account_id === savings.id);
const mirror = await step("getTransactionById", () => api.transactions.getTransactionById(p, transfer.transfer_transaction_id));
check(mirror?.data.transaction.amount === 2000 && mirror.data.transaction.account_id === savings.id, "a transfer enters the other account");
await step("updateTransaction", () => api.transactions.updateTransaction(p, created.transaction.id, { transaction: {
  memo: "fidelity, split", category_id: null, subtransactions: [
    { amount: -10000, category_id: newCat.id }, { amount: -2340, category_id: cat("Uitjes").id }] } }));
const readSplit = await step("getTransactionById", () => api.transactions.getTransactionById(p, created.transaction.id));
check(readSplit?.data.transaction.subtransactions.length === 2 && readSplit.data.transaction.category_name === "Split",
  "updateTransaction makes a split", JSON.stringify(readSplit?.data.transaction));
await step("updateTransactions", () => api.transactions.updateTransactions(p, { transactions: [
  { id: createdMany.transaction_ids[0], approved: true, flag_color: "purple" }, { import_id: "fidelity:1", memo: "by import id" }] }));
const readPatched = await step("getTransactionById", () => api.transactions.getTransactionById(p, createdMany.transaction_ids[0]));
check(readPatched?.data.transaction.flag_color === "purple" && readPatched.data.transaction.memo === "by import id", "updateTransactions then read");
// (The SDK's model for this body has no import_id: it sends the transactions without one.)
const bulk = await step("bulkCreateTransactions", () => deprecated.bulkCreateTransactions(p, { transactions: [
  { account_id: account.id, date: date(-3), amount: -3000, memo: "bulk 1" }, { account_id: account.id, date: date(-3), amount: -4000, memo: "bulk 2" }] }));
check(bulk?.data.bulk.transaction_ids.length === 2 && bulk.data.bulk.duplicate_import_ids.length === 0, "bulkCreateTransactions", JSON.stringify(bulk?.data));
const readBulk = await step("getTransactionById", () => api.transactions.getTransactionById(p, bulk.data.bulk.transaction_ids[1]));
check(readBulk?.data.transaction.memo === "bulk 2" && readBulk.data.transaction.amount === -4000, "bulkCreateTransactions then read");
const imported = await step("importTransactions", () => api.transactions.importTransactions(p));
check(imported?.data.transaction_ids.length === 2, "importTransactions", JSON.stringify(imported?.data));
await step("deleteTransaction", () => api.transactions.deleteTransaction(p, transfer.id));
const afterDelete = await step("getTransactions (delta)", () => api.transactions.getTransactions(p, undefined, undefined, knowledge));
const deletedIds = (afterDelete?.data.transactions ?? []).filter((t) => t.deleted).map((t) => t.id);
check(deletedIds.includes(transfer.id) && deletedIds.includes(transfer.transfer_transaction_id), "deleting one side of a transfer deletes both", JSON.stringify(deletedIds));

const st = (await step("createScheduledTransaction", () => api.scheduledTransactions.createScheduledTransaction(p, { scheduled_transaction: {
  account_id: account.id, date: date(20), amount: -5000, frequency: "monthly", payee_id: payee.id, category_id: newCat.id } })))?.data.scheduled_transaction;
await step("updateScheduledTransaction", () => api.scheduledTransactions.updateScheduledTransaction(p, st.id, { scheduled_transaction: {
  account_id: account.id, date: date(21), amount: -6000, frequency: "weekly" } }));
const readSt = await step("getScheduledTransactionById", () => api.scheduledTransactions.getScheduledTransactionById(p, st.id));
check(readSt?.data.scheduled_transaction.amount === -6000 && readSt.data.scheduled_transaction.frequency === "weekly", "updateScheduledTransaction then read");
await step("deleteScheduledTransaction", () => api.scheduledTransactions.deleteScheduledTransaction(p, st.id));
const stDelta = await step("getScheduledTransactions (delta)", () => api.scheduledTransactions.getScheduledTransactions(p, knowledge));
check(stDelta?.data.scheduled_transactions.some((s) => s.id === st.id && s.deleted), "deleteScheduledTransaction then delta");
const delta = await step("getPlanById (delta)", () => api.plans.getPlanById(p, knowledge));
check(delta?.data.server_knowledge > knowledge && delta.data.plan.transactions.length > 0, "getPlanById delta");
for (const [name, fn] of [["getAccounts", () => api.accounts.getAccounts(p, knowledge)], ["getCategories", () => api.categories.getCategories(p, knowledge)],
  ["getPayees", () => api.payees.getPayees(p, knowledge)], ["getPlanMonths", () => api.months.getPlanMonths(p, knowledge)]]) {
  await step(name + " (delta)", fn);
}

// An error answer is YNAB's error body, which the SDK throws as its error.
const from = answers.length;
try {
  await api.transactions.getTransactionById(p, "0f0f0f0f-0000-4000-8000-000000000000");
  fail("getTransactionById of an unknown id", "did not throw");
} catch (e) {
  validate(from);
  const body = answers.at(-1);
  check(body.status === 404 && JSON.parse(body.text).error.id === "404.2", "an unknown transaction is YNAB's 404.2", body.text);
}

// The SDK before the rename: /budgets paths, old keys.
const old = new ynab2.API(token, base);
const budgets = await step("v2 getBudgets", () => old.budgets.getBudgets());
check(budgets?.data.budgets.length >= 1 && budgets.data.default_budget?.id === planId, "v2 getBudgets", JSON.stringify(budgets?.data.default_budget));
const budget = await step("v2 getBudgetById", () => old.budgets.getBudgetById(planId));
check(budget?.data.budget.id === planId, "v2 getBudgetById");
await step("v2 getBudgetSettingsById", () => old.budgets.getBudgetSettingsById(planId));
await step("v2 getAccounts", () => old.accounts.getAccounts(planId));
await step("v2 getAccountById", () => old.accounts.getAccountById(planId, checking.id));
await step("v2 getCategories", () => old.categories.getCategories(planId));
await step("v2 getCategoryById", () => old.categories.getCategoryById(planId, cat("Huur").id));
await step("v2 getMonthCategoryById", () => old.categories.getMonthCategoryById(planId, "current", cat("Huur").id));
await step("v2 getBudgetMonths", () => old.months.getBudgetMonths(planId));
await step("v2 getBudgetMonth", () => old.months.getBudgetMonth(planId, "current"));
await step("v2 getPayees", () => old.payees.getPayees(planId));
await step("v2 getPayeeById", () => old.payees.getPayeeById(planId, ah.id));
await step("v2 getPayeeLocations", () => old.payeeLocations.getPayeeLocations(planId));
await step("v2 getPayeeLocationById", () => old.payeeLocations.getPayeeLocationById(planId, locations[0].id));
await step("v2 getPayeeLocationsByPayee", () => old.payeeLocations.getPayeeLocationsByPayee(planId, ah.id));
await step("v2 getTransactions", () => old.transactions.getTransactions(planId));
await step("v2 getTransactionById", () => old.transactions.getTransactionById(planId, split.id));
await step("v2 getTransactionsByAccount", () => old.transactions.getTransactionsByAccount(planId, checking.id));
await step("v2 getTransactionsByCategory", () => old.transactions.getTransactionsByCategory(planId, cat("Boodschappen").id));
await step("v2 getTransactionsByPayee", () => old.transactions.getTransactionsByPayee(planId, ah.id));
await step("v2 getTransactionsByMonth", () => old.transactions.getTransactionsByMonth(planId, "current"));
await step("v2 getScheduledTransactions", () => old.scheduledTransactions.getScheduledTransactions(planId));
await step("v2 getScheduledTransactionById", () => old.scheduledTransactions.getScheduledTransactionById(planId, scheduled[0].id));
await step("v2 getUser", () => old.user.getUser());
await step("v2 updateMonthCategory", () => old.categories.updateMonthCategory(planId, "current", cat("Uitjes").id, { category: { budgeted: 90000 } }));
const v2cat = await step("v2 getMonthCategoryById", () => old.categories.getMonthCategoryById(planId, "current", cat("Uitjes").id));
check(v2cat?.data.category.budgeted === 90000, "v2 updateMonthCategory then read");
const v2tx = (await step("v2 createTransaction", () => old.transactions.createTransaction(planId, { transaction: {
  account_id: checking.id, date: date(0), amount: -777, payee_name: "Fidelity v2" } })))?.data.transaction;
await step("v2 updateTransaction", () => old.transactions.updateTransaction(planId, v2tx.id, { transaction: { memo: "v2", approved: true } }));
const v2read = await step("v2 getTransactionById", () => old.transactions.getTransactionById(planId, v2tx.id));
check(v2read?.data.transaction.memo === "v2", "v2 updateTransaction then read");
await step("v2 updateTransactions", () => old.transactions.updateTransactions(planId, { transactions: [{ id: v2tx.id, flag_color: "red" }] }));
await step("v2 deleteTransaction", () => old.transactions.deleteTransaction(planId, v2tx.id));
const { DeprecatedApi: DeprecatedApi2 } = await import("ynab2/dist/apis/DeprecatedApi.js");
const oldDeprecated = new DeprecatedApi2(new ynab2.Configuration({ accessToken: token, basePath: base }));
await step("v2 bulkCreateTransactions", () => oldDeprecated.bulkCreateTransactions(planId, { transactions: [
  { account_id: checking.id, date: date(0), amount: -778, import_id: "fidelity:v2" }] }));
await step("v2 importTransactions", () => old.transactions.importTransactions(planId));
const v2acct = (await step("v2 createAccount", () => old.accounts.createAccount(planId, { account: { name: "Fidelity v2", type: "savings", balance: 5000 } })))?.data.account;
check(v2acct?.balance === 5000 && v2acct.on_budget, "v2 createAccount", JSON.stringify(v2acct));
await step("v2 updateCategory", () => old.categories.updateCategory(planId, cat("Uitjes").id, { category: { note: "v2 note" } }));
const v2note = await step("v2 getCategoryById", () => old.categories.getCategoryById(planId, cat("Uitjes").id));
check(v2note?.data.category.note === "v2 note", "v2 updateCategory then read");
await step("v2 updatePayee", () => old.payees.updatePayee(planId, payee.id, { payee: { name: "Fidelity payee v2" } }));
const v2payee = await step("v2 getPayeeById", () => old.payees.getPayeeById(planId, payee.id));
check(v2payee?.data.payee.name === "Fidelity payee v2", "v2 updatePayee then read");
const v2st = (await step("v2 createScheduledTransaction", () => old.scheduledTransactions.createScheduledTransaction(planId, { scheduled_transaction: {
  account_id: checking.id, date: date(10), amount: -2500, frequency: "yearly", payee_name: "Fidelity v2 yearly" } })))?.data.scheduled_transaction;
await step("v2 updateScheduledTransaction", () => old.scheduledTransactions.updateScheduledTransaction(planId, v2st.id, { scheduled_transaction: {
  account_id: checking.id, date: date(11), memo: "v2 schedule" } }));
const v2stRead = await step("v2 getScheduledTransactionById", () => old.scheduledTransactions.getScheduledTransactionById(planId, v2st.id));
check(v2stRead?.data.scheduled_transaction.memo === "v2 schedule" && v2stRead.data.scheduled_transaction.date_next === date(11), "v2 updateScheduledTransaction then read");
await step("v2 deleteScheduledTransaction", () => old.scheduledTransactions.deleteScheduledTransaction(planId, v2st.id));
await step("v2 getTransactionsByType", () => old.transactions.getTransactionsByType(planId, "unapproved"));

// Every operation of the spec, and the SDK's legacy bulk one, answered with success.
for (const o of operations) {
  check(covered.has(o.op.operationId), `operation ${o.op.operationId}`, "never answered with success");
}
check(covered.has("POST /bulk"), "operation bulkCreateTransactions", "never answered with success");

console.log(`${passed} passed, ${failed} failed`);
process.exit(failed > 0 ? 1 : 0);
