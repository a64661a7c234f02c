// Command coredns is CoreDNS with only the plugins the local cluster's Corefile uses (see
// ../README.md). Upstream's main package links about 60 plugins, among them cloud DNS providers
// whose SDKs would triple the build time; the server core and each plugin below are upstream's,
// unchanged. A plugin registers itself when imported, so adding one to the Corefile means adding
// its import here.
package main

import (
	"github.com/coredns/coredns/coremain"

	_ "github.com/coredns/coredns/plugin/bind"
	_ "github.com/coredns/coredns/plugin/cache"
	_ "github.com/coredns/coredns/plugin/errors"
	_ "github.com/coredns/coredns/plugin/health"
	_ "github.com/coredns/coredns/plugin/kubernetes"
	_ "github.com/coredns/coredns/plugin/loadbalance"
	_ "github.com/coredns/coredns/plugin/log"
	_ "github.com/coredns/coredns/plugin/ready"
)

func main() {
	coremain.Run()
}
