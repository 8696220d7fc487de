import json,sys
d=json.load(open(sys.argv[1]))[0]
print(d['candidate'], d['status'], d['reward'], '|reason:', d['reason'])
print(' canary', d['canary'], 'decoys', d['decoys'], 'controls', d['controls'], 'changed', d['changed_files'], 'blocked', d.get('config_files_blocked'))
print(' suspicious', json.dumps(d['suspicious'])[:1500])
print(' f2p', [(t['id'],t['outcome']) for t in d['fail_to_pass']])
print(' p2p failed', [(t['id'],t['outcome']) for t in d['pass_to_pass'] if not t['passed']])
print(' notes', d['notes'])
