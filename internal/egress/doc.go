// Package egress plans transparent egress for a tool in its own network
// namespace: which names its resolver answers, with which private
// loopback address each, and which addresses and ports inside the
// namespace stand for the endpoints the net rules grant. The supervisor
// serves those listeners with package netproxy (ServeTransparent), which
// decides every connection with the same engine as the proxy, and
// answers DNS with Resolver.
//
// All of 127.0.0.0/8 is routed to lo in a fresh network namespace, so a
// listener can bind any 127.x.y.z without configuring an address or a
// route: names get addresses from NameNet, and a rule naming a loopback
// literal or localhost is served at that address. Everything else has
// no route and reaches nothing.
package egress
