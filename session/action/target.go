package action

import sc "github.com/ward-sim/ward/session/scenario"

// targetSats reads a prescribed SpO2 target: "target sats 88-92", "aim for 94 to 98 %".
func (c clause) targetSats() []placed {
	i := c.index(catTarget, 0)
	if i < 0 || c.negated(i) {
		return nil
	}
	var nums []float64
	for _, lx := range c[i+1:] {
		if lx.cat == catNum && lx.num >= 50 && lx.num <= 100 {
			nums = append(nums, lx.num)
		}
	}
	if len(nums) < 2 {
		return nil
	}
	return []placed{{c[i].pos, Action{Kind: sc.KindTargetSats, Target: [2]float64{min(nums[0], nums[1]), max(nums[0], nums[1])}}}}
}
