/** BFCL's MessageAPI, TwitterAPI (posting_api.py) and TicketAPI. */
import type { PyDict, PyKey } from '../../python/operations.js'
import { SimulatedApi, get, m, opt, type ApiMethod } from './api.js'
import { PyExc, PyRandom, PySet, asVal, cmp, contains, dict, eq, getKey, hasKey, needStr, str, toInt, truthy, typeName, type Val } from '../../python/runtime.js'

export class MessageApi extends SimulatedApi {
  readonly className = 'MessageAPI'
  private random = new PyRandom(200191)
  generatedIds: Val = asVal(new PySet())
  userCount: Val = 4
  userMap: PyDict = new Map()
  inbox: Val[] = []
  messageCount: Val = 3
  currentUser: Val = null

  loadScenario(c: PyDict): void {
    this.random = new PyRandom(Number(get(c, 'random_seed', 200191)))
    this.generatedIds = c.has('generated_ids') ? c.get('generated_ids')! : asVal(new PySet())
    this.userCount = get(c, 'user_count', 4)
    this.userMap = get(c, 'user_map', dict([['Alice', 'USR001'], ['Bob', 'USR002'], ['Catherine', 'USR003'], ['Daniel', 'USR004']])) as PyDict
    this.inbox = get(c, 'inbox', [
      dict([['USR002', 'My name is Alice. I want to connect.']]),
      dict([['USR003', 'Could you upload the file?']]),
      dict([['USR004', 'Could you upload the file?']]),
    ]) as Val[]
    this.messageCount = get(c, 'message_count', 3)
    this.currentUser = get(c, 'current_user', null)
  }

  state(): [string, Val][] {
    return [
      ['generated_ids', this.generatedIds],
      ['user_count', this.userCount],
      ['user_map', this.userMap],
      ['inbox', this.inbox],
      ['message_count', this.messageCount],
      ['current_user', this.currentUser],
    ]
  }

  private generateId(): Val {
    const ids = this.generatedIds as unknown
    if (!(ids instanceof PySet)) throw new PyExc(`'${typeName(ids)}' object has no attribute 'add'`)
    let id = this.random.randint(10000, 99999)
    while (ids.has(id)) id = this.random.randint(10000, 99999)
    ids.add(id)
    return dict([['new_id', id]])
  }

  methods(): Record<string, ApiMethod> {
    const noUser = () => (truthy(this.currentUser) ? undefined : dict([['error', 'No user is currently logged in.']]))
    const first = (msg: Val): [Val, Val] => [...(msg as PyDict)][0] as [Val, Val]
    return {
      add_contact: m(['user_name'], ([name]) => {
        if (contains(this.userMap, name)) return dict([['error', `User name '${str(name)}' already exists.`]])
        this.userCount = (this.userCount as number) + 1
        const id = `USR${String(this.userCount).padStart(3, '0')}`
        if ([...this.userMap.values()].some((v) => eq(v, id))) return dict([['error', `User ID '${id}' already exists.`]])
        this.userMap.set(name as PyKey, id)
        return dict([['added_status', true], ['user_id', id], ['message', `Contact '${str(name)}' added successfully.`]])
      }),
      delete_message: m(['receiver_id'], ([rid]) => {
        const e = noUser()
        if (e) return e
        for (let i = this.inbox.length - 1; i >= 0; i--) {
          const [receiver] = first(this.inbox[i]!)
          if (eq(receiver, rid)) {
            const target = this.inbox[i]
            this.inbox.splice(this.inbox.findIndex((x) => eq(x, target)), 1)
            return dict([['deleted_status', true], ['receiver_id', receiver], ['message', `Receiver ${str(rid)}'s latest message deleted successfully.`]])
          }
        }
        return dict([['error', `Receiver ID ${str(rid)} not found.`]])
      }),
      get_message_stats: m([], () => {
        const e = noUser()
        if (e) return e
        const contacts = new PySet()
        for (const msg of this.inbox) contacts.add(first(msg)[0])
        return dict([['stats', dict([['received_count', this.inbox.length], ['total_contacts', contacts.items.size]])]])
      }),
      get_user_id: m(['user'], ([user]) => {
        if (!contains(this.userMap, user)) return dict([['error', `User '${str(user)}' not found in the workspace.`]])
        return dict([['user_id', getKey(this.userMap, user)!]])
      }),
      list_users: m([], () => dict([['user_list', [...this.userMap.keys()] as Val[]]])),
      message_get_login_status: m([], () => dict([['login_status', truthy(this.currentUser)]])),
      message_login: m(['user_id'], ([id]) => {
        if (![...this.userMap.values()].some((v) => eq(v, id))) return dict([['login_status', false], ['message', `User ID '${str(id)}' not found.`]])
        this.currentUser = id!
        return dict([['login_status', true], ['message', `User '${str(id)}' logged in successfully.`]])
      }),
      search_messages: m(['keyword'], ([kw]) => {
        const e = noUser()
        if (e) return e
        const k = needStr(kw, 'lower').toLowerCase()
        const results: Val[] = []
        for (const msg of this.inbox) {
          const [rid, content] = first(msg)
          if (needStr(content, 'lower').toLowerCase().includes(k)) results.push(dict([['receiver_id', rid], ['message', content]]))
        }
        return dict([['results', results]])
      }),
      send_message: m(['receiver_id', 'message'], ([rid, message]) => {
        const e = noUser()
        if (e) return e
        if (![...this.userMap.values()].some((v) => eq(v, rid))) return dict([['error', `Receiver ID '${str(rid)}' not found.`]])
        const id = this.generateId()
        this.inbox.push(dict([[rid as PyKey, message!]]))
        this.messageCount = (this.messageCount as number) + 1
        return dict([['sent_status', true], ['message_id', id], ['message', `Message sent to '${str(rid)}' successfully.`]])
      }),
      view_messages_sent: m([], () => {
        const e = noUser()
        if (e) return e
        const sent: PyDict = new Map()
        for (const msg of this.inbox) {
          const [rid, content] = first(msg)
          const list = getKey(sent, rid) as Val[] | undefined
          if (list) list.push(content)
          else sent.set(rid as PyKey, [content])
        }
        return dict([['messages', sent]])
      }),
    }
  }
}

const NOT_AUTH = (what: string): Val => dict([['error', `User not authenticated. Please authenticate before ${what}.`]])

export class TwitterApi extends SimulatedApi {
  readonly className = 'TwitterAPI'
  username: Val = 'john'
  password: Val = 'john123'
  authenticated: Val = false
  tweets: PyDict = new Map()
  comments: PyDict = new Map()
  retweets: PyDict = new Map()
  followingList: Val[] = ['alice', 'bob']
  tweetCounter: Val = 0

  loadScenario(c: PyDict): void {
    this.username = get(c, 'username', 'john')
    this.password = get(c, 'password', 'john123')
    this.authenticated = get(c, 'authenticated', false)
    const tweets = get(c, 'tweets', new Map()) as PyDict
    this.tweets = new Map([...tweets].map(([k, v]) => [toInt(k), v]))
    this.comments = get(c, 'comments', new Map()) as PyDict
    this.retweets = get(c, 'retweets', new Map()) as PyDict
    this.followingList = get(c, 'following_list', ['alice', 'bob']) as Val[]
    this.tweetCounter = get(c, 'tweet_counter', 0)
  }

  state(): [string, Val][] {
    return [
      ['username', this.username],
      ['password', this.password],
      ['authenticated', this.authenticated],
      ['tweets', this.tweets],
      ['comments', this.comments],
      ['retweets', this.retweets],
      ['following_list', this.followingList],
      ['tweet_counter', this.tweetCounter],
    ]
  }

  methods(): Record<string, ApiMethod> {
    const authed = () => truthy(this.authenticated)
    const notFound = (id: Val) => dict([['error', `Tweet with ID ${str(id)} not found.`]])
    const shared = (name: string) => [name, () => this.session.sharedDefault(`TwitterAPI.post_tweet.${name}`, () => [])] as const
    return {
      authenticate_twitter: m(['username', 'password'], ([u, p]) => {
        if (eq(u, this.username) && eq(p, this.password)) {
          this.authenticated = true
          return dict([['authentication_status', true]])
        }
        return dict([['authentication_status', false]])
      }),
      comment: m(['tweet_id', 'comment_content'], ([id, content]) => {
        if (!authed()) return NOT_AUTH('commenting')
        if (!hasKey(this.tweets, id)) return notFound(id!)
        if (!hasKey(this.comments, id)) this.comments.set(id as PyKey, [])
        ;(getKey(this.comments, id) as Val[]).push(dict([['username', this.username], ['content', content!]]))
        return dict([['comment_status', 'Comment added successfully']])
      }),
      follow_user: m(['username_to_follow'], ([u]) => {
        if (!authed()) return NOT_AUTH('following')
        if (contains(this.followingList, u)) return dict([['follow_status', false]])
        this.followingList.push(u!)
        return dict([['follow_status', true]])
      }),
      get_tweet: m(['tweet_id'], ([id]) => (hasKey(this.tweets, id) ? getKey(this.tweets, id)! : notFound(id!))),
      get_tweet_comments: m(['tweet_id'], ([id]) => {
        if (!hasKey(this.tweets, id)) return notFound(id!)
        return getKey(this.comments, id) ?? []
      }),
      get_user_stats: m(['username'], ([u]) => {
        const count = [...this.tweets.values()].filter((t) => eq((t as PyDict).get('username'), u)).length
        const following = eq(u, this.username) ? this.followingList.length : 0
        const retweets = getKey(this.retweets, u) as Val[] | undefined
        return dict([['tweet_count', count], ['following_count', following], ['retweet_count', retweets ? retweets.length : 0]])
      }),
      get_user_tweets: m(['username'], ([u]) => [...this.tweets.values()].filter((t) => eq((t as PyDict).get('username'), u))),
      list_all_following: m([], () => (authed() ? dict([['following_list', this.followingList]]) : NOT_AUTH('listing following'))),
      mention: m(['tweet_id', 'mentioned_usernames'], ([id, names]) => {
        if (!hasKey(this.tweets, id)) return notFound(id!)
        const mentions = (getKey(this.tweets, id) as PyDict).get('mentions')
        if (!Array.isArray(mentions)) throw new PyExc(`'${typeName(mentions)}' object has no attribute 'extend'`)
        if (typeof names === 'string') mentions.push(...Array.from(names))
        else if (Array.isArray(names)) mentions.push(...names)
        else throw new PyExc(`'${typeName(names)}' object is not iterable`)
        return dict([['mention_status', 'Users mentioned successfully']])
      }),
      post_tweet: m(['content', shared('tags'), shared('mentions')], ([content, tags, mentions]) => {
        if (!authed()) return NOT_AUTH('posting')
        const tweet = dict([['id', this.tweetCounter], ['username', this.username], ['content', content!], ['tags', tags!], ['mentions', mentions!]])
        this.tweets.set(this.tweetCounter as PyKey, tweet)
        this.tweetCounter = (this.tweetCounter as number) + 1
        return tweet
      }),
      posting_get_login_status: m([], () => dict([['login_status', truthy(this.authenticated)]])),
      retweet: m(['tweet_id'], ([id]) => {
        if (!authed()) return NOT_AUTH('retweeting')
        if (!hasKey(this.tweets, id)) return notFound(id!)
        if (!hasKey(this.retweets, this.username)) this.retweets.set(this.username as PyKey, [])
        const list = getKey(this.retweets, this.username) as Val[]
        if (contains(list, id)) return dict([['retweet_status', 'Already retweeted']])
        list.push(id!)
        return dict([['retweet_status', 'Successfully retweeted']])
      }),
      search_tweets: m(['keyword'], ([kw]) => {
        const k = needStr(kw, 'lower').toLowerCase()
        return [...this.tweets.values()].filter((t) => {
          const d = t as PyDict
          return needStr(d.get('content'), 'lower').toLowerCase().includes(k) || (d.get('tags') as Val[]).some((tag) => needStr(tag, 'lower').toLowerCase() === k)
        })
      }),
      unfollow_user: m(['username_to_unfollow'], ([u]) => {
        if (!authed()) return NOT_AUTH('unfollowing')
        if (!contains(this.followingList, u)) return dict([['unfollow_status', false]])
        this.followingList.splice(this.followingList.findIndex((x) => eq(x, u)), 1)
        return dict([['unfollow_status', true]])
      }),
    }
  }
}

export class TicketApi extends SimulatedApi {
  readonly className = 'TicketAPI'
  ticketQueue: Val[] = []
  ticketCounter: Val = 1
  currentUser: Val = null

  loadScenario(c: PyDict): void {
    this.ticketQueue = get(c, 'ticket_queue', []) as Val[]
    this.ticketCounter = get(c, 'ticket_counter', 1)
    this.currentUser = get(c, 'current_user', null)
  }

  state(): [string, Val][] {
    return [
      ['ticket_queue', this.ticketQueue],
      ['ticket_counter', this.ticketCounter],
      ['current_user', this.currentUser],
    ]
  }

  private find(id: Val): PyDict | undefined {
    return this.ticketQueue.find((t) => eq((t as PyDict).get('id'), id)) as PyDict | undefined
  }

  methods(): Record<string, ApiMethod> {
    const notFound = (id: Val) => dict([['error', `Ticket with ID ${str(id)} not found.`]])
    return {
      close_ticket: m(['ticket_id'], ([id]) => {
        const t = this.find(id!)
        if (!t || t.size === 0) return notFound(id!)
        if (t.get('status') === 'Closed') return dict([['error', `Ticket with ID ${str(id)} is already closed.`]])
        t.set('status', 'Closed')
        return dict([['status', `Ticket ${str(id)} has been closed successfully.`]])
      }),
      create_ticket: m(['title', opt('description', ''), opt('priority', 1)], ([title, description, priority]) => {
        if (!truthy(this.currentUser)) return dict([['error', 'User not authenticated. Please log in to create a ticket.']])
        if (cmp(priority, 1, '<') || cmp(priority, 5, '>')) return dict([['error', 'Invalid priority. Priority must be between 1 and 5.']])
        const ticket = dict([
          ['id', this.ticketCounter],
          ['title', title!],
          ['description', description!],
          ['status', 'Open'],
          ['priority', priority!],
          ['created_by', this.currentUser],
        ])
        this.ticketQueue.push(ticket)
        this.ticketCounter = (this.ticketCounter as number) + 1
        return ticket
      }),
      edit_ticket: m(['ticket_id', 'updates'], ([id, updates]) => {
        const t = this.find(id!)
        if (!t || t.size === 0) return notFound(id!)
        if (!(updates instanceof Map)) throw new PyExc(`'${typeName(updates)}' object has no attribute 'keys'`)
        const valid = ['title', 'description', 'status', 'priority']
        const invalid = [...updates.keys()].filter((k) => !valid.includes(k as string))
        if (invalid.length > 0) return dict([['error', `Invalid fields for update: ${invalid.map((k) => str(k)).join(', ')}`]])
        for (const [k, v] of updates) if (v !== null) t.set(k, v)
        return dict([['status', `Ticket ${str(id)} has been updated successfully.`]])
      }),
      get_ticket: m(['ticket_id'], ([id]) => {
        const t = this.find(id!)
        return !t || t.size === 0 ? notFound(id!) : t
      }),
      get_user_tickets: m([opt('status', null)], ([status]) => {
        if (!truthy(this.currentUser)) return [dict([['error', 'User not authenticated. Please log in to view tickets.']])]
        let tickets = this.ticketQueue.filter((t) => eq((t as PyDict).get('created_by'), this.currentUser))
        if (truthy(status)) {
          const s = needStr(status, 'lower').toLowerCase()
          tickets = tickets.filter((t) => needStr((t as PyDict).get('status'), 'lower').toLowerCase() === s)
        }
        return tickets
      }),
      logout: m([], () => {
        if (truthy(this.currentUser)) {
          this.currentUser = null
          return dict([['success', true]])
        }
        return dict([['success', false]])
      }),
      resolve_ticket: m(['ticket_id', 'resolution'], ([id, resolution]) => {
        const t = this.find(id!)
        if (!t || t.size === 0) return notFound(id!)
        if (t.get('status') === 'Resolved') return dict([['error', `Ticket with ID ${str(id)} is already resolved.`]])
        t.set('status', 'Resolved')
        t.set('resolution', resolution!)
        return dict([['status', `Ticket ${str(id)} has been resolved successfully.`]])
      }),
      ticket_get_login_status: m([], () => dict([['login_status', truthy(this.currentUser)]])),
      ticket_login: m(['username', 'password'], ([u, p]) => {
        if (truthy(u) && truthy(p)) {
          this.currentUser = u!
          return dict([['success', true]])
        }
        return dict([['success', false]])
      }),
    }
  }
}
