// Command executor is the executor's side: verify the token (read on standard input) before
// acting, and act at most once per token.
package main

import (
	"bufio"
	"fmt"
	"log"
	"os"
	"strings"
	"time"

	authority "github.com/authority-runtime/authority-runtime/sdks/go"
)

func main() {
	base, tenant := os.Getenv("AUTHORITY_URL"), os.Getenv("AUTHORITY_TENANT")
	target := os.Getenv("AUTHORITY_TARGET_SYSTEM")
	if target == "" {
		target = "acme/api"
	}
	jwks := authority.NewRemoteJWKS(base + "/.well-known/authority/" + tenant + "/jwks.json")
	// One nonce store for every executor of the tenant: the service's own (needs a key with the
	// permission intent:token:consume).
	nonces, err := authority.NewRemoteNonceStore(base, tenant, os.Getenv("AUTHORITY_API_KEY"))
	if err != nil {
		log.Fatal(err)
	}

	token, _ := bufio.NewReader(os.Stdin).ReadString('\n')
	result, err := authority.VerifyAuthorityToken(strings.TrimSpace(token), jwks, authority.Expected{
		TenantID: tenant, AdapterID: "external", TargetSystem: target, NonceStore: nonces,
	}, time.Now())
	if err != nil {
		log.Fatal(err)
	}
	if !result.Valid {
		fmt.Println("REFUSED", result.Reason)
		os.Exit(1)
	}
	fmt.Printf("VALID %s on %s\n", result.Claims.ProposedAction, result.Claims.TargetSystem)
	// Only now perform exactly result.Claims.ProposedAction on result.Claims.TargetSystem.
}
