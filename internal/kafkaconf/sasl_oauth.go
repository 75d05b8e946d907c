package kafkaconf

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/sasl"
	"github.com/twmb/franz-go/pkg/sasl/oauth"

	"github.com/kbench/kbench/internal/infile"
)

// oauthMechanism takes the token from the JAAS options: token (static),
// tokenFile (read for every new connection, so a refreshed file is
// picked up), or unsecuredLoginStringClaim_sub (an unsigned token, as
// Java's unsecured login makes for test clusters). Extensions are the
// options named extension_NAME.
func oauthMechanism(jp Prop, e jaasEntry) (sasl.Mechanism, error) {
	ext := map[string]string{}
	for k, v := range e.Options {
		if name, ok := strings.CutPrefix(k, "extension_"); ok {
			ext[name] = v
		}
		if name, ok := strings.CutPrefix(k, "unsecuredLoginExtension_"); ok {
			ext[name] = v
		}
	}
	token, file, sub := e.Options["token"], e.Options["tokenFile"], e.Options["unsecuredLoginStringClaim_sub"]
	switch {
	case token != "":
		return oauth.Auth{Token: token, Extensions: ext}.AsMechanism(), nil
	case file != "":
		if _, err := os.Stat(file); err != nil {
			return nil, propError(jp, fmt.Sprintf("tokenFile: %v", err), "")
		}
		return oauth.Oauth(func(context.Context) (oauth.Auth, error) {
			b, err := infile.Read(file, MaxPropertiesFile, "an OAuth token file")
			if err != nil {
				return oauth.Auth{}, fmt.Errorf("read the OAuth token file: %w", err)
			}
			return oauth.Auth{Token: strings.TrimSpace(string(b)), Extensions: ext}, nil
		}), nil
	case sub != "":
		return oauth.Oauth(func(context.Context) (oauth.Auth, error) {
			return oauth.Auth{Token: unsecuredJWT(sub), Extensions: ext}, nil
		}), nil
	}
	return nil, propError(jp, "the OAuth token is missing: give token=\"...\", tokenFile=\"/path\" or unsecuredLoginStringClaim_sub=\"name\" (test clusters)", "")
}

// unsecuredJWT is an unsigned token for sub, valid for an hour.
func unsecuredJWT(sub string) string {
	enc := base64.RawURLEncoding
	hdr, _ := json.Marshal(map[string]string{"alg": "none"})
	now := time.Now().Unix()
	claims, _ := json.Marshal(map[string]any{"sub": sub, "iat": now, "exp": now + 3600})
	return enc.EncodeToString(hdr) + "." + enc.EncodeToString(claims) + "."
}
