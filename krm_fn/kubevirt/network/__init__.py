"""The network admitter (``pkg/network/admitter``): the rules on a VMI spec's networks and interfaces."""
