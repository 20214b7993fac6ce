package persist

import (
	"encoding/json"
	"errors"
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// A resuscitation team's shift is stored as a trainee's, under the team's name (ui/lab:
// team-NAME). In an encrypted database its records are sealed with the team's own data key,
// which no passphrase opens: it is sealed to the instructor as every trainee's is, and boxed for
// each member under that member's own data key (traineeKey.Members). So a member who signed in
// with their own passphrase opens the team's shift, and no member's key opens another's. The
// first member to join makes the team's key; a member new to it gets it boxed for them while a
// member who holds it is in the team's shift (ShareTeam).

// TeamAs is a view acting for the team whose records are stored as team, opened through s, a
// view signed in as one of its members. In an encrypted database the member's box of the team's
// key opens it; a team with no key yet gets one, boxed for the member. A member with no box is
// ErrNoAccess: they join while a member who holds the key is in the shift.
func (s *Store) TeamAs(team string) (*Store, error) {
	if err := checkTraineeName(team, true); err != nil {
		return nil, err
	}
	v := s.newView()
	v.acc.person, v.acc.dataKeys = Person{Trainee: team}, map[string]*sealer{}
	encrypted, err := s.Encrypted()
	if err != nil || !encrypted {
		return v, err // a plain file: the view needs no key, and nothing is written
	}
	member := s.Person().Trainee
	var c *sealer
	found := true
	err = s.view(func(tx *bolt.Tx) (err error) {
		c, found, err = s.openTeamKey(tx, team, member)
		return err
	})
	if err == nil && !found { // the first member ever: the one write
		err = s.update(func(tx *bolt.Tx) (err error) {
			if c, found, err = s.openTeamKey(tx, team, member); err != nil || found {
				return err
			}
			own, err := s.dataKey(tx, member)
			if err == nil {
				c, err = newTeamKey(tx, team, member, own)
			}
			return err
		})
	}
	if err != nil {
		return nil, err
	}
	v.acc.dataKeys[team] = c
	return v, nil
}

// openTeamKey opens the team's key with the member's box of it; found is false when the team has
// no key yet.
func (s *Store) openTeamKey(tx *bolt.Tx, team, member string) (c *sealer, found bool, err error) {
	k, found, err := readTraineeKey(tx, team)
	if err != nil || !found {
		return nil, found, err
	}
	box, ok := k.Members[member]
	switch {
	case len(k.Members) == 0: // ward encrypt sealed the team's shifts, as every trainee's, for the instructor
		return nil, true, fmt.Errorf("the shifts of %s were encrypted with the database and open for the instructor only: form the team again under another name: %w", team, ErrNoAccess)
	case !ok:
		return nil, true, fmt.Errorf("the shift of %s opens for a member who has joined it before: join while one of them is in it: %w", team, ErrNoAccess)
	}
	own, err := s.dataKey(tx, member)
	if err != nil {
		return nil, true, err
	}
	key, err := boxOpen(own.key, box, teamAAD(team, member))
	if err != nil {
		return nil, true, fmt.Errorf("%s's key boxed for %s does not open: it is damaged", team, member)
	}
	c, err = newSealer(team, key, !k.Bound)
	return c, true, err
}

// newTeamKey makes a team's data key, sealed to the instructor and boxed for its first member.
func newTeamKey(tx *bolt.Tx, team, member string, own *sealer) (*sealer, error) {
	ik, err := readInstructorKey(tx)
	if err != nil {
		return nil, err
	}
	pub, err := ik.public()
	if err != nil {
		return nil, fmt.Errorf("the instructor's public key is damaged: %w", err)
	}
	key := newDataKey()
	k, err := newTraineeKey(team, key, pub, nil, true)
	if err != nil {
		return nil, err
	}
	k.Members = map[string][]byte{member: boxSeal(own.key, key, teamAAD(team, member))}
	if err := putKey(tx, team, k); err != nil {
		return nil, err
	}
	return newSealer(team, key, false)
}

// ShareTeam boxes the team's key, open in s (a view from TeamAs), for member, a view signed in
// as a member who has no box of it yet. Nothing is done in a plain database, or for a member who
// has one.
func (s *Store) ShareTeam(member *Store) error {
	team, who := s.Person().Trainee, member.Person().Trainee
	shared := true
	err := s.view(func(tx *bolt.Tx) error {
		if s.encrypted(tx) {
			k, _, err := readTraineeKey(tx, team)
			shared = err == nil && k.Members[who] != nil
		}
		return nil
	})
	if err != nil || shared {
		return err // a plain file, or a member who holds it: nothing to write
	}
	return s.update(func(tx *bolt.Tx) error {
		k, found, err := readTraineeKey(tx, team)
		if err == nil && !found {
			err = errors.New("the team has no key")
		}
		if err != nil || k.Members[who] != nil {
			return err
		}
		key, err := s.dataKey(tx, team)
		if err != nil {
			return err
		}
		own, err := member.dataKey(tx, who)
		if err != nil {
			return err
		}
		if k.Members == nil {
			k.Members = map[string][]byte{}
		}
		k.Members[who] = boxSeal(own.key, key.key, teamAAD(team, who))
		return putKey(tx, team, k)
	})
}

func putKey(tx *bolt.Tx, trainee string, k traineeKey) error {
	raw, err := json.Marshal(k)
	if err != nil {
		return err
	}
	return putTraineeValue(tx, trainee, keyTraineeKey, raw)
}

func teamAAD(team, member string) string {
	return "ward: the data key of team " + team + " for member " + member
}
