import { LINK_IDENTITY } from '../sources/entry';
import { DEFAULT_CONCURRENCY, MAX_CONCURRENCY } from '../../../lib/seed/contract/limits';
import { parentsOf, removeLeftovers, removeMadeDirectories, removeWritten } from '../target/removal';
import { LAMBDA_MOUNT_PATH, targetSubPathProblem } from '../../../lib/seed/contract/resource-properties';
import { identityOf, sameResource } from './resource-identity';
import { describeNotProven, RunTokens } from '../state/run-tokens';
import { Place, placeOf } from './seed-place';
import type { SeedEvent } from './seed-event';
import { liveSeedServing } from './stack-seeds';

/**
 * The seed's Delete, which never sticks: it parses the properties leniently (only where the place
 * is, and RemoveOnDelete; an older version's layout or a value today's checks refuse does not fail
 * it), leaves a place another resource owns now (the new place of a replaced seed is its own), stops
 * a run of its own resource that goes on (a stack deleted while a Create resumes), and with
 * RemoveOnDelete 'true' removes, in slices, what the seed wrote and what interrupted runs left: the
 * files and links the manifest lists while they are still as written, the directories seeds made
 * once nothing else is in them, then the seed's state; nothing else, and never through a link. What
 * it cannot remove, or may not (changed since), is logged and stays.
 */
export async function onDelete(event: SeedEvent, deadline: number, runDeadline: number) {
  const physicalId = event.PhysicalResourceId ?? 'seed';
  const identity = identityOf(event, physicalId);
  const done = (complete: boolean) => ({ PhysicalResourceId: physicalId, Data: { Complete: String(complete), Deadline: runDeadline } });
  const place = lenientPlaceOf(event);
  if (!place) return done(true);
  let ours = false;
  try {
    const claimed = await place.claimed();
    if (claimed && !sameResource(claimed.resource, identity)) {
      console.log(JSON.stringify({ message: 'the place belongs to another resource now: left as it is', place: place.where, owner: claimed.resource }));
      // The resource that took the place over from this one (a rename) now owns it alone.
      if (claimed.previous && sameResource(claimed.previous, identity)) await place.claim(claimed.request, claimed.resource, false);
      return done(true);
    }
    if (claimed?.previous && !claimed.released) {
      // A rename rolled back: the resource this one took the place over from stays, with its content.
      await handBack(place, requestIdOf(event), claimed.previous);
      return done(true);
    }
    ours = true;
    const removing = event.ResourceProperties?.RemoveOnDelete === 'true' && !await servedByAnotherSeed(event, physicalId, place, deadline);
    // A run of this resource that goes on sees the claim and stops; content left in place is released to whoever seeds the place next.
    if (claimed || removing) await place.claim(requestIdOf(event), identity, false, !removing);
    if (!removing) return done(true);
    return done(await removeSlice(place, identity, requestIdOf(event), concurrencyOf(event), deadline));
  } catch (err) {
    console.warn(JSON.stringify({ message: 'the seed\'s Delete could not do all it would: what is left stays', place: place.where, error: (err as Error).message }));
    // What stays of this resource's is released, so that a later seed, of any stack, may take the place.
    if (ours) await place.claim(requestIdOf(event), identity, false, true).catch(() => undefined);
    return done(true);
  }
}

/**
 * Whether a live Distributed Map or DataSync seed resource of the stack serves the place, or one in
 * it or around it (an engine change: the new engine's copy writes no claim), so that the files stay;
 * also when that cannot be told.
 */
async function servedByAnotherSeed(event: SeedEvent, physicalId: string, place: Place, deadline: number): Promise<boolean> {
  if (!event.StackId || !event.LogicalResourceId) return false;
  try {
    const serving = await liveSeedServing(event.StackId, event.LogicalResourceId, physicalId, deadline);
    if (serving) {
      console.log(JSON.stringify({
        message: 'another seed resource of the stack serves the place, or one in it or around it, now: all of it is left as it is',
        place: place.where, by: serving.logicalId, type: serving.type, itsPlace: serving.place,
      }));
    }
    return serving !== undefined;
  } catch (err) {
    console.warn(JSON.stringify({
      message: 'could not tell whether another seed resource of the stack serves the place: its files stay (the seed function needs cloudformation:ListStackResources and DescribeStackResource on its stack, and a route to CloudFormation)',
      place: place.where, error: (err as Error).message,
    }));
    return true;
  }
}

/** The place, its claim and its manifest's owner, go back to the resource `to`. */
async function handBack(place: Place, request: string, to: string): Promise<void> {
  await place.withState(false, async (state) => {
    if (!state) return;
    const lock = await state.lock({ holder: request, waitMs: 120_000 });
    try {
      const manifest = await state.readManifest(lock.uid);
      if (manifest.owner) {
        manifest.owner = to;
        await state.saveManifest(manifest, false);
      }
      await state.claim({ request, resource: to });
    } finally {
      await lock.release();
    }
  });
  console.log(JSON.stringify({ message: 'the place goes back to the resource it was taken over from: left as it is', place: place.where, owner: to }));
}

/** isComplete of a Delete: one more slice of removal, while the place is still claimed for this request. */
export async function removalSlice(event: SeedEvent, deadline: number): Promise<boolean> {
  const place = lenientPlaceOf(event);
  if (!place) return true;
  try {
    if (!await place.claimedFor(requestIdOf(event))) return true; // a newer request took the place over
    return await removeSlice(place, identityOf(event, event.PhysicalResourceId ?? 'seed'), requestIdOf(event), concurrencyOf(event), deadline);
  } catch (err) {
    console.warn(JSON.stringify({ message: 'the seed\'s Delete could not do all it would: what is left stays', place: place.where, error: (err as Error).message }));
    return true;
  }
}

const requestIdOf = (event: SeedEvent) => event.RequestId ?? event.RequestType;

/** Where the place is, if the properties say it usably: the mount path and sub-path only. */
function lenientPlaceOf(event: SeedEvent): Place | undefined {
  const { MountPath, TargetSubPath } = (event.ResourceProperties ?? {}) as { MountPath?: unknown; TargetSubPath?: unknown };
  if (typeof MountPath !== 'string' || !LAMBDA_MOUNT_PATH.test(MountPath) || typeof TargetSubPath !== 'string' || targetSubPathProblem(TargetSubPath)) {
    console.log(JSON.stringify({ message: 'the properties name no place the seed can reach: nothing to stop or remove', MountPath, TargetSubPath }));
    return undefined;
  }
  return placeOf({ MountPath, TargetSubPath });
}

function concurrencyOf(event: SeedEvent): number {
  const n = Number(event.ResourceProperties?.Concurrency);
  return Number.isInteger(n) && n >= 1 && n <= MAX_CONCURRENCY ? n : DEFAULT_CONCURRENCY;
}

/** One slice of removal, until `deadline`; true once everything is done (or nothing is this resource's to remove). */
async function removeSlice(place: Place, identity: string, request: string, concurrency: number, deadline: number): Promise<boolean> {
  return place.withState(false, async (state, tree) => {
    if (!tree) return true; // nothing there to remove
    const lock = await state?.lock({ holder: request, waitMs: Math.max(0, Math.min(120_000, deadline - Date.now())) });
    try {
      const manifest = state ? await state.readManifest(lock?.uid) : undefined;
      if (manifest?.owner && !sameResource(manifest.owner, identity)) {
        console.log(JSON.stringify({ message: 'the place\'s content is another resource\'s now: left as it is', place: place.where, owner: manifest.owner }));
        return true;
      }
      for (const problem of manifest?.problems ?? []) console.warn(JSON.stringify({ message: 'seed warning', warning: problem }));
      const files = [...manifest?.files ?? []].map(([file, source]) => ({ path: file, identity: source.startsWith(LINK_IDENTITY) ? source : manifest!.written.get(file) }));
      const directories = [...manifest?.directories ?? [], ...files.flatMap((file) => [...parentsOf(file.path)])];
      // Only what the state records its runs made (their tokens), and owned by the user the seed writes as.
      const proof = { tokens: state && lock ? await state.readTokens(lock.uid) : RunTokens.none, owners: new Set(lock ? [lock.uid] : []) };
      const { finished: leftoversGone, leftAlone } = await removeLeftovers(tree, directories, proof, concurrency, deadline);
      if (leftAlone.length > 0) console.warn(JSON.stringify({ message: 'seed warning', warning: describeNotProven(leftAlone) }));
      const failures: string[] = [];
      const { gone, kept } = await removeWritten(tree, files, concurrency, (relative, err) => failures.push(`${relative}: ${(err as Error).message}`), deadline);
      if (failures.length > 0) console.warn(JSON.stringify({ message: 'files the seed wrote could not be removed', count: failures.length, failures: failures.slice(0, 20) }));
      if (kept.length > 0) console.warn(JSON.stringify({ message: 'kept files that changed since the seed wrote them', count: kept.length, kept: kept.slice(0, 20) }));
      if (!manifest || !state) return leftoversGone;
      for (const file of [...gone, ...kept]) {
        manifest.files.delete(file);
        manifest.written.delete(file);
      }
      const timeLeft = leftoversGone && Date.now() < deadline && gone.length + kept.length + failures.length === files.length;
      const emptied = timeLeft ? await removeMadeDirectories(tree, manifest.directories, manifest.directories, deadline) : undefined;
      emptied?.gone.forEach((dir) => manifest.directories.delete(dir));
      if (emptied?.finished) {
        const made = await state.madePlace(place.subPath);
        await state.remove();
        const madeGone = await place.removeMadeDirectories(made);
        console.log(JSON.stringify({ message: 'seed removal done', removed: gone.length, kept: kept.length, failed: failures.length, placeDirectoriesRemoved: madeGone }));
        return true;
      }
      await state.saveManifest(manifest, false);
      console.log(JSON.stringify({ message: 'seed removal slice done', removed: gone.length, left: manifest.files.size, directoriesLeft: manifest.directories.size }));
      return false;
    } finally {
      await lock?.release();
    }
  });
}
