/// The store the last unscoped creation of an entity went to, in a stack of several stores.
///
/// The writer keeps one for all its transactions (a run of one-row transactions looks the store up
/// once); a migration's transaction has its own, and a read context, which creates nothing, none. The route depends only on the
/// stack's stores, which the memo names: a stack that adds a store has a new main context, so an old
/// route no longer matches.
final class RouteMemo {
    var last: (entity: ObjectIdentifier, stack: StoreContext, store: StoreContext)?
}
