// Test kit of @lasso/cache: an in-memory lister-watcher with history, pagination and faults.
export {
  FakeListerWatcher,
  type FakeListerWatcherOptions,
  FakeWatch,
} from './fake-lister-watcher.ts';
